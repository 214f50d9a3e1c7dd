import os, sys, torch, triton
sys.path.insert(0, "tools/bench/tutorials")
import tutorials_vs_triton as tv
triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
M = N = K = 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16); b = torch.randn(N, K, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
sms = torch.cuda.get_device_properties(0).multi_processor_count
grid = lambda META: (min(sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])), )
k = tv.matmul_kernel_descriptor_persistent[grid](a, b, c, M, N, K, NUM_SMS=sms)
print(type(k), tv.matmul_kernel_descriptor_persistent.best_config)
out = os.environ["OUT"]
for name in ("ptx", "ttgir"):
    try:
        open(f"{out}/triton.{name}", "w").write(k.asm[name])
    except Exception as e:
        print(name, e)
try:
    open(f"{out}/triton.cubin", "wb").write(k.asm["cubin"])
except Exception as e:
    print("cubin", e)
