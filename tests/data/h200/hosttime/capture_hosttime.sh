#!/bin/bash
# issue 22, host time measured beside each trace (tests/data/h200/hosttime/README.md). Run on the device beside a copy
# of the hipgauge package of the commit named in the README for each folder:
#   bash capture_hosttime.sh dev      -> dev/: models seen before (the development of the host-time model)
#   bash capture_hosttime.sh blind4   -> blind4/, bash capture_hosttime.sh blind5 -> blind5/, blind6 -> blind6/:
#                                        models never captured before, each set looked at only after the model was frozen
#   bash capture_hosttime.sh dev7     -> dev7/, blind7 -> blind7/: the harness's own defaults (600 iterations in 60
#                                        rounds, one untimed settle call per block), commit 38bc7ab
#   bash capture_hosttime.sh blind8   -> blind8/: models never captured before, after the host-transfer term was frozen
#   bash capture_hosttime.sh blind9   -> blind9/: models never captured before, after the prediction interval was frozen
#   bash capture_hosttime.sh blind10  -> blind10/: models never captured before, after the tail widening was frozen
#   bash capture_hosttime.sh blind11  -> blind11/: models never captured before, the model unchanged since blind10 (asked for an H200)
#   bash capture_hosttime.sh blind12  -> blind12/: models never captured before, 3000 iterations in 300 rounds of 10 (the
#                                        P99's tail widening is x1.19 at 3000, x2.65 at the default 600); blind12w: its
#                                        Wide ResNet-101, which ran out of time there, alone
#   bash capture_hosttime.sh blind13  -> blind13/: three small models never captured before, 3000 iterations as blind12
#   bash capture_hosttime.sh blind14  -> blind14/ (and blind14b): models never captured before, 3000 iterations as
#                                        blind12, with the same-spell rounds timed until they agree ([same_spell])
cd "$(dirname "$0")"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
H=$OUT/h; mkdir -p $H
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; python3 -c "import torch, torchvision, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'torchvision', torchvision.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"; } > $H/env.txt 2>&1
run() {  # name, timeout, args...
  local name=$1 t=$2; shift 2
  echo "\$ python3 -m hipgauge capture torch models.py:torchvision_model $* -o $name --iterations 600 --rounds 30 --warmup 100 --no-progress" > $H/${name}_log.txt
  timeout $t python3 -m hipgauge capture torch models.py:torchvision_model "$@" -o $H/$name --iterations 600 --rounds 30 --warmup 100 --no-progress >> $H/${name}_log.txt 2>&1
  echo "rc=$?" >> $H/${name}_log.txt
  tar czf $OUT/${name}.tgz -C $H $name ${name}_log.txt env.txt
}
run7() {  # as run, with the harness's default plan
  local name=$1 t=$2; shift 2
  echo "\$ python3 -m hipgauge capture torch models.py:torchvision_model $* -o $name --warmup 100 --no-progress" > $H/${name}_log.txt
  timeout $t python3 -m hipgauge capture torch models.py:torchvision_model "$@" -o $H/$name --warmup 100 --no-progress >> $H/${name}_log.txt 2>&1
  echo "rc=$?" >> $H/${name}_log.txt
  tar czf $OUT/${name}.tgz -C $H $name ${name}_log.txt env.txt
}
run12() {  # as run7, with 3000 iterations in 300 rounds (the same blocks of 10)
  local name=$1 t=$2; shift 2
  echo "\$ python3 -m hipgauge capture torch models.py:torchvision_model $* -o $name --iterations 3000 --rounds 300 --warmup 100 --no-progress" > $H/${name}_log.txt
  timeout $t python3 -m hipgauge capture torch models.py:torchvision_model "$@" -o $H/$name --iterations 3000 --rounds 300 --warmup 100 --no-progress >> $H/${name}_log.txt 2>&1
  echo "rc=$?" >> $H/${name}_log.txt
  tar czf $OUT/${name}.tgz -C $H $name ${name}_log.txt env.txt
}
if [ "$1" = dev ]; then
run regnet4 120 --factory-arg name=regnet_y_1_6gf --factory-arg batch=16 --variant regy_bs16_fp32=fp32 --variant regy_bs16_tf32=fp32,tf32 --variant regy_bs16_fp16_cl=fp16,cl
run swin4 120 --factory-arg name=swin_t --factory-arg batch=16 --variant swint_bs16_fp32=fp32 --variant swint_bs16_tf32=fp32,tf32 --variant swint_bs16_bf16=bf16
run effb0_4 120 --factory-arg name=efficientnet_b0 --factory-arg batch=32 --variant effb0_bs32_fp32=fp32 --variant effb0_bs32_tf32=fp32,tf32 --variant effb0_bs32_fp16_cl=fp16,cl
run vitb16_4 100 --factory-arg name=vit_b_16 --factory-arg batch=8 --variant vitb16_bs8_fp32=fp32 --variant vitb16_bs8_tf32=fp32,tf32 --variant vitb16_bs8_bf16=bf16
run rx50_4 100 --factory-arg name=resnext50_32x4d --factory-arg batch=16 --variant rx50_bs16_fp32=fp32 --variant rx50_bs16_tf32=fp32,tf32 --variant rx50_bs16_fp16_cl=fp16,cl
fi
if [ "$1" = blind4 ]; then
run shuf 120 --factory-arg name=shufflenet_v2_x1_0 --factory-arg batch=32 --variant shuf_bs32_fp32=fp32 --variant shuf_bs32_tf32=fp32,tf32 --variant shuf_bs32_fp16_cl=fp16,cl
run wrn50 120 --factory-arg name=wide_resnet50_2 --factory-arg batch=16 --variant wrn50_bs16_fp32=fp32 --variant wrn50_bs16_tf32=fp32,tf32 --variant wrn50_bs16_fp16_cl=fp16,cl
run vitb32 120 --factory-arg name=vit_b_32 --factory-arg batch=16 --variant vitb32_bs16_fp32=fp32 --variant vitb32_bs16_tf32=fp32,tf32 --variant vitb32_bs16_bf16=bf16
run effv2s 120 --factory-arg name=efficientnet_v2_s --factory-arg batch=16 --variant effv2s_bs16_fp32=fp32 --variant effv2s_bs16_tf32=fp32,tf32 --variant effv2s_bs16_fp16_cl=fp16,cl
fi
if [ "$1" = blind5 ]; then
run mnas 110 --factory-arg name=mnasnet1_0 --factory-arg batch=32 --variant mnas_bs32_fp32=fp32 --variant mnas_bs32_tf32=fp32,tf32 --variant mnas_bs32_fp16_cl=fp16,cl
run r101 110 --factory-arg name=resnet101 --factory-arg batch=16 --variant r101_bs16_fp32=fp32 --variant r101_bs16_tf32=fp32,tf32 --variant r101_bs16_fp16_cl=fp16,cl
run regx 110 --factory-arg name=regnet_x_3_2gf --factory-arg batch=16 --variant regx_bs16_fp32=fp32 --variant regx_bs16_tf32=fp32,tf32 --variant regx_bs16_fp16_cl=fp16,cl
run vgg 110 --factory-arg name=vgg16_bn --factory-arg batch=8 --variant vgg_bs8_fp32=fp32 --variant vgg_bs8_tf32=fp32,tf32 --variant vgg_bs8_fp16_cl=fp16,cl
fi
if [ "$1" = blind6 ]; then
run mbv2 100 --factory-arg name=mobilenet_v2 --factory-arg batch=32 --variant mbv2_bs32_fp32=fp32 --variant mbv2_bs32_tf32=fp32,tf32 --variant mbv2_bs32_fp16_cl=fp16,cl
run sqz 100 --factory-arg name=squeezenet1_1 --factory-arg batch=32 --variant sqz_bs32_fp32=fp32 --variant sqz_bs32_tf32=fp32,tf32 --variant sqz_bs32_fp16_cl=fp16,cl
run incv3 100 --factory-arg name=inception_v3 --factory-arg batch=16 --factory-arg size=299 --variant incv3_bs16_fp32=fp32 --variant incv3_bs16_tf32=fp32,tf32 --variant incv3_bs16_fp16_cl=fp16,cl
run maxvit 100 --factory-arg name=maxvit_t --factory-arg batch=8 --variant maxvit_bs8_fp32=fp32 --variant maxvit_bs8_tf32=fp32,tf32 --variant maxvit_bs8_bf16=bf16
fi
if [ "$1" = dev7 ]; then
run7 vgg 100 --factory-arg name=vgg16_bn --factory-arg batch=8 --variant vgg_bs8_fp32=fp32 --variant vgg_bs8_tf32=fp32,tf32 --variant vgg_bs8_fp16_cl=fp16,cl
run7 mbv2 100 --factory-arg name=mobilenet_v2 --factory-arg batch=32 --variant mbv2_bs32_fp32=fp32 --variant mbv2_bs32_tf32=fp32,tf32 --variant mbv2_bs32_fp16_cl=fp16,cl
run7 vitb16 100 --factory-arg name=vit_b_16 --factory-arg batch=8 --variant vitb16_bs8_fp32=fp32 --variant vitb16_bs8_tf32=fp32,tf32 --variant vitb16_bs8_bf16=bf16
run7 effb0 100 --factory-arg name=efficientnet_b0 --factory-arg batch=32 --variant effb0_bs32_fp32=fp32 --variant effb0_bs32_tf32=fp32,tf32 --variant effb0_bs32_fp16_cl=fp16,cl
run7 shuf 100 --factory-arg name=shufflenet_v2_x1_0 --factory-arg batch=32 --variant shuf_bs32_fp32=fp32 --variant shuf_bs32_tf32=fp32,tf32 --variant shuf_bs32_fp16_cl=fp16,cl
fi
if [ "$1" = blind7 ]; then
run7 r152 100 --factory-arg name=resnet152 --factory-arg batch=16 --variant r152_bs16_fp32=fp32 --variant r152_bs16_tf32=fp32,tf32 --variant r152_bs16_fp16_cl=fp16,cl
run7 effb3 100 --factory-arg name=efficientnet_b3 --factory-arg batch=16 --variant effb3_bs16_fp32=fp32 --variant effb3_bs16_tf32=fp32,tf32 --variant effb3_bs16_fp16_cl=fp16,cl
run7 dn169 100 --factory-arg name=densenet169 --factory-arg batch=16 --variant dn169_bs16_fp32=fp32 --variant dn169_bs16_tf32=fp32,tf32 --variant dn169_bs16_fp16_cl=fp16,cl
run7 mnv3s 100 --factory-arg name=mobilenet_v3_small --factory-arg batch=32 --variant mnv3s_bs32_fp32=fp32 --variant mnv3s_bs32_tf32=fp32,tf32 --variant mnv3s_bs32_fp16_cl=fp16,cl
run7 regy32 100 --factory-arg name=regnet_y_3_2gf --factory-arg batch=16 --variant regy32_bs16_fp32=fp32 --variant regy32_bs16_tf32=fp32,tf32 --variant regy32_bs16_fp16_cl=fp16,cl
fi
if [ "$1" = blind8 ]; then
run7 r34 100 --factory-arg name=resnet34 --factory-arg batch=16 --variant r34_bs16_fp32=fp32 --variant r34_bs16_tf32=fp32,tf32 --variant r34_bs16_fp16_cl=fp16,cl
run7 gnet 100 --factory-arg name=googlenet --factory-arg batch=32 --variant gnet_bs32_fp32=fp32 --variant gnet_bs32_tf32=fp32,tf32 --variant gnet_bs32_fp16_cl=fp16,cl
run7 regx16 100 --factory-arg name=regnet_x_1_6gf --factory-arg batch=16 --variant regx16_bs16_fp32=fp32 --variant regx16_bs16_tf32=fp32,tf32 --variant regx16_bs16_fp16_cl=fp16,cl
run7 effb1 100 --factory-arg name=efficientnet_b1 --factory-arg batch=16 --variant effb1_bs16_fp32=fp32 --variant effb1_bs16_tf32=fp32,tf32 --variant effb1_bs16_fp16_cl=fp16,cl
run7 regy08 100 --factory-arg name=regnet_y_800mf --factory-arg batch=32 --variant regy08_bs32_fp32=fp32 --variant regy08_bs32_tf32=fp32,tf32 --variant regy08_bs32_fp16_cl=fp16,cl
fi
if [ "$1" = blind9 ]; then
run7 alex 100 --factory-arg name=alexnet --factory-arg batch=32 --variant alex_bs32_fp32=fp32 --variant alex_bs32_tf32=fp32,tf32 --variant alex_bs32_fp16_cl=fp16,cl
run7 mnas05 100 --factory-arg name=mnasnet0_5 --factory-arg batch=32 --variant mnas05_bs32_fp32=fp32 --variant mnas05_bs32_tf32=fp32,tf32 --variant mnas05_bs32_fp16_cl=fp16,cl
run7 shuf2 100 --factory-arg name=shufflenet_v2_x2_0 --factory-arg batch=32 --variant shuf2_bs32_fp32=fp32 --variant shuf2_bs32_tf32=fp32,tf32 --variant shuf2_bs32_fp16_cl=fp16,cl
run7 effb2 100 --factory-arg name=efficientnet_b2 --factory-arg batch=16 --variant effb2_bs16_fp32=fp32 --variant effb2_bs16_tf32=fp32,tf32 --variant effb2_bs16_fp16_cl=fp16,cl
run7 swins 100 --factory-arg name=swin_s --factory-arg batch=8 --variant swins_bs8_fp32=fp32 --variant swins_bs8_tf32=fp32,tf32 --variant swins_bs8_bf16=bf16
fi
if [ "$1" = blind10 ]; then
run7 dn201 100 --factory-arg name=densenet201 --factory-arg batch=16 --variant dn201_bs16_fp32=fp32 --variant dn201_bs16_tf32=fp32,tf32 --variant dn201_bs16_fp16_cl=fp16,cl
run7 mnv3l 100 --factory-arg name=mobilenet_v3_large --factory-arg batch=32 --variant mnv3l_bs32_fp32=fp32 --variant mnv3l_bs32_tf32=fp32,tf32 --variant mnv3l_bs32_fp16_cl=fp16,cl
run7 regx08 100 --factory-arg name=regnet_x_800mf --factory-arg batch=32 --variant regx08_bs32_fp32=fp32 --variant regx08_bs32_tf32=fp32,tf32 --variant regx08_bs32_fp16_cl=fp16,cl
run7 rx101 100 --factory-arg name=resnext101_32x8d --factory-arg batch=8 --variant rx101_bs8_fp32=fp32 --variant rx101_bs8_tf32=fp32,tf32 --variant rx101_bs8_fp16_cl=fp16,cl
run7 swinv2t 100 --factory-arg name=swin_v2_t --factory-arg batch=8 --variant swinv2t_bs8_fp32=fp32 --variant swinv2t_bs8_tf32=fp32,tf32 --variant swinv2t_bs8_bf16=bf16
fi
if [ "$1" = blind11 ]; then
run7 r50 100 --factory-arg name=resnet50 --factory-arg batch=16 --variant r50_bs16_fp32=fp32 --variant r50_bs16_tf32=fp32,tf32 --variant r50_bs16_fp16_cl=fp16,cl
run7 vgg11 100 --factory-arg name=vgg11 --factory-arg batch=16 --variant vgg11_bs16_fp32=fp32 --variant vgg11_bs16_tf32=fp32,tf32 --variant vgg11_bs16_fp16_cl=fp16,cl
run7 regy04 100 --factory-arg name=regnet_y_400mf --factory-arg batch=32 --variant regy04_bs32_fp32=fp32 --variant regy04_bs32_tf32=fp32,tf32 --variant regy04_bs32_fp16_cl=fp16,cl
run7 effb4 100 --factory-arg name=efficientnet_b4 --factory-arg batch=8 --variant effb4_bs8_fp32=fp32 --variant effb4_bs8_tf32=fp32,tf32 --variant effb4_bs8_fp16_cl=fp16,cl
run7 cnxs 100 --factory-arg name=convnext_small --factory-arg batch=8 --variant cnxs_bs8_fp32=fp32 --variant cnxs_bs8_tf32=fp32,tf32 --variant cnxs_bs8_bf16=bf16
fi
if [ "$1" = blind12 ]; then
run12 shuf15 140 --factory-arg name=shufflenet_v2_x1_5 --factory-arg batch=32 --variant shuf15_bs32_fp32=fp32 --variant shuf15_bs32_tf32=fp32,tf32 --variant shuf15_bs32_fp16_cl=fp16,cl
run12 regx04 140 --factory-arg name=regnet_x_400mf --factory-arg batch=32 --variant regx04_bs32_fp32=fp32 --variant regx04_bs32_tf32=fp32,tf32 --variant regx04_bs32_fp16_cl=fp16,cl
run12 mnas13 140 --factory-arg name=mnasnet1_3 --factory-arg batch=32 --variant mnas13_bs32_fp32=fp32 --variant mnas13_bs32_tf32=fp32,tf32 --variant mnas13_bs32_fp16_cl=fp16,cl
run12 wrn101 140 --factory-arg name=wide_resnet101_2 --factory-arg batch=8 --variant wrn101_bs8_fp32=fp32 --variant wrn101_bs8_tf32=fp32,tf32 --variant wrn101_bs8_fp16_cl=fp16,cl
fi
if [ "$1" = blind12w ]; then  # Wide ResNet-101 ran out of its 140 s in blind12 (rc=124): alone, with room
run12 wrn101 400 --factory-arg name=wide_resnet101_2 --factory-arg batch=8 --variant wrn101_bs8_fp32=fp32 --variant wrn101_bs8_tf32=fp32,tf32 --variant wrn101_bs8_fp16_cl=fp16,cl
fi
if [ "$1" = blind13 ]; then
run12 sqz10 100 --factory-arg name=squeezenet1_0 --factory-arg batch=32 --variant sqz10_bs32_fp32=fp32 --variant sqz10_bs32_tf32=fp32,tf32 --variant sqz10_bs32_fp16_cl=fp16,cl
run12 shuf05 100 --factory-arg name=shufflenet_v2_x0_5 --factory-arg batch=32 --variant shuf05_bs32_fp32=fp32 --variant shuf05_bs32_tf32=fp32,tf32 --variant shuf05_bs32_fp16_cl=fp16,cl
run12 mnas075 100 --factory-arg name=mnasnet0_75 --factory-arg batch=32 --variant mnas075_bs32_fp32=fp32 --variant mnas075_bs32_tf32=fp32,tf32 --variant mnas075_bs32_fp16_cl=fp16,cl
fi
if [ "$1" = blind14 ]; then
run12 regx8 170 --factory-arg name=regnet_x_8gf --factory-arg batch=16 --variant regx8_bs16_fp32=fp32 --variant regx8_bs16_tf32=fp32,tf32 --variant regx8_bs16_fp16_cl=fp16,cl
run12 dn161 200 --factory-arg name=densenet161 --factory-arg batch=8 --variant dn161_bs8_fp32=fp32 --variant dn161_bs8_tf32=fp32,tf32 --variant dn161_bs8_fp16_cl=fp16,cl
run12 vgg13 150 --factory-arg name=vgg13 --factory-arg batch=16 --variant vgg13_bs16_fp32=fp32 --variant vgg13_bs16_tf32=fp32,tf32 --variant vgg13_bs16_fp16_cl=fp16,cl
fi
if [ "$1" = blind14b ]; then
run12 effb5 260 --factory-arg name=efficientnet_b5 --factory-arg batch=4 --variant effb5_bs4_fp32=fp32 --variant effb5_bs4_tf32=fp32,tf32 --variant effb5_bs4_fp16_cl=fp16,cl
run12 rx101w 260 --factory-arg name=resnext101_64x4d --factory-arg batch=8 --variant rx101w_bs8_fp32=fp32 --variant rx101w_bs8_tf32=fp32,tf32 --variant rx101w_bs8_fp16_cl=fp16,cl
fi
ls $H
ls -la $OUT
