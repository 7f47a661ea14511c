#!/bin/bash
# blind same-GPU pairs for the projection interval (issue 22): captured by the lead, not seen by the calibration
cd "$(dirname "$0")"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
H=$OUT/h; mkdir -p $H
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, torchvision, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'torchvision', torchvision.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"; } > $H/env.txt 2>&1
run() {  # name, timeout, args...
  local name=$1 t=$2; shift 2
  echo "\$ python3 -m hipgauge capture torch models.py:torchvision_model $* -o $name --iterations 600 --rounds 30 --warmup 100 --no-progress" > $H/${name}_log.txt
  timeout $t python3 -m hipgauge capture torch models.py:torchvision_model "$@" -o $H/$name --iterations 600 --rounds 30 --warmup 100 --no-progress >> $H/${name}_log.txt 2>&1
  echo "rc=$?" >> $H/${name}_log.txt
  tar czf $OUT/${name}.tgz -C $H $name ${name}_log.txt env.txt
}
run regnet 150 --factory-arg name=regnet_y_1_6gf --factory-arg batch=16 --variant regy_bs16_fp32=fp32 --variant regy_bs16_tf32=fp32,tf32 --variant regy_bs16_fp16_cl=fp16,cl
run densenet 150 --factory-arg name=densenet121 --factory-arg batch=16 --variant dn121_bs16_fp16_nchw=fp16 --variant dn121_bs16_fp16_cl=fp16,cl --variant dn121_bs16_bf16_nchw=bf16
run swin 150 --factory-arg name=swin_t --factory-arg batch=16 --variant swint_bs16_fp32=fp32 --variant swint_bs16_tf32=fp32,tf32 --variant swint_bs16_bf16=bf16
cat $H/*_log.txt | tail -40
ls -la $OUT
