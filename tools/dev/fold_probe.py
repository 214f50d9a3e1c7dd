# Runs tutorial 09's descriptor kernel (tl, both tiles) at 4096^3 a few times through the tutorials'
# kernel library, for Nsight Compute: ncu --kernel-name regex:entry python3 tools/dev/fold_probe.py LIB
import ctypes
import sys

import torch

lib = ctypes.CDLL(sys.argv[1])
M = N = K = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(N, K, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
sms = torch.cuda.get_device_properties(0).multi_processor_count
for name in ("tl_tutorials_matmul_descriptor_persistent", "tl_tutorials_matmul_descriptor_persistent_wide"):
    f = getattr(lib, name)
    for _ in range(2):
        rc = f(ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(b.data_ptr()), ctypes.c_void_p(c.data_ptr()),
               ctypes.c_int(M), ctypes.c_int(N), ctypes.c_int(K), ctypes.c_int(sms), ctypes.c_void_p(0))
        assert rc == 0, name
    torch.cuda.synchronize()
    err = (c.float() - (a @ b.T).float()).abs().max().item()
    print(name, "max abs error", err)
