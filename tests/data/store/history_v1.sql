-- A history store as hipgauge's first schema (version 1) wrote it, frozen here so the migration
-- test does not depend on the current code's step 1. Two assessments of project "detector":
-- ROCm 6.2 then 6.3; decode_boxes_kernel goes from 1.04x to 1.33x.
CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TIMESTAMP NOT NULL, note VARCHAR);
INSERT INTO schema_version VALUES (1, TIMESTAMP '2026-01-05 10:00:00', 'assessments, toolchain versions, per-kernel parity, findings counts');
CREATE SEQUENCE IF NOT EXISTS assessment_ids START 1;
CREATE TABLE assessments (
    id BIGINT NOT NULL DEFAULT nextval('assessment_ids'),
    project VARCHAR NOT NULL,
    commit VARCHAR,
    recorded_at TIMESTAMP NOT NULL,
    root VARCHAR,
    translation_share DOUBLE,
    findings_total INTEGER,
    baseline_ms DOUBLE,
    projected_ms DOUBLE,
    target_ms DOUBLE,
    percentile DOUBLE
);
CREATE TABLE toolchain (assessment_id BIGINT NOT NULL, component VARCHAR NOT NULL, version VARCHAR);
CREATE TABLE kernel_parity (
    assessment_id BIGINT NOT NULL,
    label VARCHAR NOT NULL,
    match VARCHAR,
    baseline_ns DOUBLE,
    candidate_ns DOUBLE,
    ratio DOUBLE,
    share DOUBLE
);
CREATE TABLE finding_counts (assessment_id BIGINT NOT NULL, code VARCHAR NOT NULL, severity VARCHAR, count INTEGER NOT NULL);
INSERT INTO assessments (project, commit, recorded_at, root, translation_share, findings_total, baseline_ms, projected_ms, target_ms, percentile)
VALUES ('detector', '1111111111111111111111111111111111111111', TIMESTAMP '2026-01-05 10:00:00', '/src/detector', 0.91, 3, 1.92, 2.03, 20.0, 99.0),
       ('detector', '2222222222222222222222222222222222222222', TIMESTAMP '2026-02-09 10:00:00', '/src/detector', 0.91, 3, 1.92, 2.40, 20.0, 99.0);
INSERT INTO toolchain VALUES (1, 'cuda', '12.4'), (1, 'rocm', '6.2'), (1, 'gpu.candidate', 'AMD Instinct MI300X'),
                             (2, 'cuda', '12.4'), (2, 'rocm', '6.3'), (2, 'gpu.candidate', 'AMD Instinct MI300X');
INSERT INTO kernel_parity VALUES
    (1, 'decode_boxes_kernel', 'exact', 1200000, 1250000, 1.0416666666666667, 0.6237),
    (1, 'preprocess_kernel', 'exact', 400000, 420000, 1.05, 0.2079),
    (2, 'decode_boxes_kernel', 'exact', 1200000, 1600000, 1.3333333333333333, 0.6237),
    (2, 'preprocess_kernel', 'exact', 400000, 425000, 1.0625, 0.2079);
INSERT INTO finding_counts VALUES (1, 'HG101', 'blocker', 1), (1, 'HG201', 'slow', 2), (2, 'HG101', 'blocker', 1), (2, 'HG201', 'slow', 2);
