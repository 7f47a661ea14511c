"""Factories for `hipgauge capture torch` (MODULE:FACTORY): torchvision models with random weights.

    hipgauge capture torch tests/data/h200/harness/models.py:torchvision_model --factory-arg name=resnet18 ...

Each returns (model, example_inputs) on the CPU; the harness moves both to the device and applies the variant's
settings (autocast dtype, channels_last, TF32, CUDA graph). Random weights: the timings are the real network
shapes, the outputs are meaningless.
"""

import torch
import torchvision


def torchvision_model(name="resnet18", batch=8, size=224):
    model = getattr(torchvision.models, name)(weights=None)
    return model, torch.randn(batch, 3, size, size)
