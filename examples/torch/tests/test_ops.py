"""tl_torch's operators against torch's, on random inputs and sizes (python -m pytest examples/torch/tests).

CUDA tensors where a GPU is present (the tests that need one say so when skipped), CPU tensors
always (tl's CPU backend). Non-contiguous inputs are checked to give torch's answer; refusals
to raise ValueError with tl's message. Needs the package installed (python3 -m pip install
--no-build-isolation examples/torch); without torch the whole module reports itself skipped.
"""
import math
import random

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: tl_torch's tests run where it is")
tl_torch = pytest.importorskip("tl_torch", reason="tl_torch is not built: python3 -m pip install --no-build-isolation examples/torch")
F = torch.nn.functional

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU here: the CUDA half of the test needs one")
rng = random.Random(20261129)


def devices():
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def close(got, want, atol, rtol, what):
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)}, torch's {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, torch's {want.dtype}"
    err = (got.float() - want.float()).abs()
    bound = atol + rtol * want.float().abs()
    assert bool((err <= bound).all()), f"{what}: max abs error {err.max().item():.3g} (atol {atol}, rtol {rtol})"


# ------------------------------------------------------------------ softmax (tutorial 02)


@pytest.mark.parametrize("device", devices())
def test_softmax_random_sizes(device):
    for _ in range(6 if device == "cuda" else 3):
        rows = rng.randint(1, 300)
        cols = rng.choice([1, 7, 100, 781, 1024, 1500, 4097, 12672, 16384] if device == "cuda" else [1, 7, 100, 781, 1500])
        x = torch.randn(rows, cols, device=device) * 4
        close(tl_torch.softmax(x), torch.softmax(x, dim=1), 1e-6, 1e-5, f"softmax {rows} x {cols} on {device}")


@pytest.mark.parametrize("device", devices())
def test_softmax_non_contiguous(device):
    base = torch.randn(130, 300, device=device)
    for x in (base.t(), base[:, ::3], base[5:70, 10:250]):
        close(tl_torch.softmax(x), torch.softmax(x, dim=1), 1e-6, 1e-5, f"softmax of strides {x.stride()}")


def test_softmax_refusals():
    with pytest.raises(ValueError, match=r"tl::from_torch: tensor 'x' is torch.float16; the view asked for holds torch.float32"):
        tl_torch.softmax(torch.randn(4, 8).half())
    with pytest.raises(ValueError, match=r"tl_torch.softmax: x is 2 x 3 x 4; it takes a matrix"):
        tl_torch.softmax(torch.randn(2, 3, 4))
    with pytest.raises(ValueError, match=r"rows of 20000 columns; at most 16384"):
        tl_torch.softmax(torch.randn(2, 20000))


# ------------------------------------------------------------------ layer norm (tutorial 05)

LN_TOL = {torch.float16: (2e-3, 1e-2), torch.bfloat16: (2e-2, 2e-2), torch.float32: (1e-4, 1e-4)}


def ln_reference(x, w, b, dy, eps):
    """torch's layer norm and its gradients, in float32 from the same inputs."""
    x32, w32, b32 = (t.detach().float().requires_grad_() for t in (x, w, b))
    y = F.layer_norm(x32, (x.shape[-1], ), w32, b32, eps)
    y.backward(dy.float())
    return y.detach(), x32.grad, w32.grad, b32.grad


@pytest.mark.parametrize("device", devices())
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_layer_norm_forward_and_backward(device, dtype):
    if device == "cpu" and dtype != torch.float32:
        pytest.skip("the CPU half runs float32 only, to keep it short")
    atol, rtol = LN_TOL[dtype]
    for _ in range(4):
        M = rng.randint(1, 700)
        N = rng.choice([3, 64, 250, 1000, 1024, 1500, 4096, 8000] if device == "cuda" else [3, 64, 250, 1000])
        eps = 1e-5
        x = (torch.randn(M, N, device=device) * 2 + 0.5).to(dtype).requires_grad_()
        w = torch.rand(N, device=device).to(dtype).requires_grad_()
        b = torch.rand(N, device=device).to(dtype).requires_grad_()
        dy = (torch.randn(M, N, device=device) * 0.1).to(dtype)
        y = tl_torch.layer_norm(x, (N, ), w, b, eps)
        y.backward(dy)
        y_ref, dx_ref, dw_ref, db_ref = ln_reference(x, w, b, dy, eps)
        what = f"layer norm {M} x {N} {dtype} on {device}"
        close(y.float(), y_ref, atol, rtol, what + ", y")
        close(x.grad.float(), dx_ref, atol * 4, rtol * 4, what + ", dx")
        # dw and db sum M rows, in partial sums of the input's type (the tutorial's choice)
        scale = math.sqrt(M) * (8 if dtype != torch.float32 else 1)
        close(w.grad.float(), dw_ref, atol * scale + 1e-3, rtol * 4, what + ", dw")
        close(b.grad.float(), db_ref, atol * scale + 1e-3, rtol * 4, what + ", db")


@pytest.mark.parametrize("device", devices())
def test_layer_norm_batched_and_non_contiguous(device):
    x = torch.randn(3, 50, 96, device=device)
    w, b = torch.rand(96, device=device), torch.rand(96, device=device)
    close(tl_torch.layer_norm(x, (96, ), w, b), F.layer_norm(x, (96, ), w, b), 1e-4, 1e-4, "3-D input")
    xt = torch.randn(96, 70, device=device).t()  # columns stride 70
    close(tl_torch.layer_norm(xt, (96, ), w, b), F.layer_norm(xt, (96, ), w, b), 1e-4, 1e-4, "transposed input")
    ws = torch.rand(192, device=device)[::2]
    close(tl_torch.layer_norm(x, (96, ), ws, b), F.layer_norm(x, (96, ), ws, b), 1e-4, 1e-4, "strided weight")


@pytest.mark.parametrize("device", devices())
@pytest.mark.filterwarnings("ignore:Input #:UserWarning")  # float32 on purpose: the kernels compute in float32
def test_layer_norm_gradcheck(device):
    x = torch.randn(5, 40, device=device, dtype=torch.float32, requires_grad=True)
    w = torch.rand(40, device=device, requires_grad=True)
    b = torch.rand(40, device=device, requires_grad=True)
    fn = lambda x, w, b: tl_torch.layer_norm(x, (40, ), w, b, 1e-5)
    assert torch.autograd.gradcheck(fn, (x, w, b), eps=1e-2, atol=2e-2, rtol=2e-2, nondet_tol=1e-5)


def test_layer_norm_refusals():
    x = torch.randn(4, 8)
    with pytest.raises(ValueError, match=r"tl_torch.layer_norm: weight is 7; x's last axis has 8 elements"):
        tl_torch.layer_norm(x, (8, ), torch.rand(7), torch.rand(8))
    with pytest.raises(ValueError, match=r"weight is Half and x Float: one element type"):
        tl_torch.layer_norm(x, (8, ), torch.rand(8).half(), torch.rand(8))
    with pytest.raises(ValueError, match=r"x is Double; it takes float16, bfloat16 or float32"):
        tl_torch.layer_norm(x.double(), (8, ), torch.rand(8).double(), torch.rand(8).double())
    with pytest.raises(ValueError, match=r"x's last axis is empty"):
        tl_torch.layer_norm(torch.randn(4, 0), (0, ), torch.rand(0), torch.rand(0))
    with pytest.raises(ValueError, match=r"normalises the last axis only"):
        tl_torch.layer_norm(x, (4, 8), torch.rand(8), torch.rand(8))
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match=r"x is on cuda:0 and weight on cpu"):
            tl_torch.layer_norm(x.cuda(), (8, ), torch.rand(8), torch.rand(8).cuda())


# ------------------------------------------------------------------ matmul (tutorial 03)


@cuda
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_matmul_random_sizes_and_strides(dtype):
    for _ in range(5):
        M, N, K = (rng.choice([1, 17, 128, 300, 1000, 2048]) for _ in range(3))
        a = torch.randn(M, K, device="cuda", dtype=dtype)
        b = torch.randn(K, N, device="cuda", dtype=dtype)
        tol = 2e-2 * math.sqrt(K / 64) * (4 if dtype == torch.bfloat16 else 1)
        want = a.float() @ b.float()
        close(tl_torch.matmul(a, b).float(), want, tol, 1e-2, f"matmul {M} x {K} x {N} {dtype}")
        bt = b.t().contiguous().t()  # column-major b: the kernel takes its strides
        close(tl_torch.matmul(a, bt).float(), want, tol, 1e-2, "matmul, column-major b")
        close(tl_torch.matmul(a, b, "leaky_relu").float(), F.leaky_relu(want, 0.01), tol, 1e-2, "matmul with leaky_relu")


def test_matmul_on_the_cpu_backend():
    a = torch.randn(70, 40).half()
    b = torch.randn(40, 130).half()
    close(tl_torch.matmul(a, b).float(), a.float() @ b.float(), 2e-2, 1e-2, "matmul on the CPU")


def test_matmul_refusals():
    a = torch.randn(8, 16).half()
    with pytest.raises(ValueError, match=r"a is 8 x 16 and b 8 x 16: a's columns must be b's rows"):
        tl_torch.matmul(a, a)
    with pytest.raises(ValueError, match=r"activation 'gelu'; it takes '' or 'leaky_relu'"):
        tl_torch.matmul(a, a.t(), "gelu")
    with pytest.raises(ValueError, match=r"a is Float; it takes float16 or bfloat16"):
        tl_torch.matmul(a.float(), a.t().float())


# ------------------------------------------------------------------ attention forward (tutorial 06)


@cuda
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_attention(head_dim, causal):
    for Z, H, n_ctx in ((1, 2, 128), (2, 3, 512)):
        q, k, v = (torch.randn(Z, H, n_ctx, head_dim, device="cuda", dtype=torch.float16) * 0.5 for _ in range(3))
        want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        close(tl_torch.attention(q, k, v, causal), want, 1e-2, 1e-2, f"attention {Z} x {H} x {n_ctx} x {head_dim}")
    # (batch, tokens, heads, dim) memory viewed as (batch, heads, tokens, dim): copied, then right
    qt, kt, vt = (torch.randn(2, 256, 3, head_dim, device="cuda", dtype=torch.float16).transpose(1, 2) for _ in range(3))
    close(tl_torch.attention(qt, kt, vt, causal), F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal), 1e-2, 1e-2,
          "attention of transposed inputs")


def test_attention_refusals():
    q = torch.randn(1, 2, 100, 64).half()
    with pytest.raises(ValueError, match=r"100 tokens; it takes a multiple of 64"):
        tl_torch.attention(q, q, q)
    q = torch.randn(1, 2, 64, 32).half()
    with pytest.raises(ValueError, match=r"head_dim 32; it takes 64 or 128"):
        tl_torch.attention(q, q, q)


# ------------------------------------------------------------------ PyTorch's machinery


@cuda
def test_current_stream():
    s = torch.cuda.Stream()
    x = torch.randn(512, 1000, device="cuda")
    want = torch.softmax(x, dim=1)
    with torch.cuda.stream(s):
        for _ in range(3):  # each launch ordered after the previous torch op on s
            y = tl_torch.softmax(x * 1.0)
            z = tl_torch.softmax(y * 0.0 + x)
    s.synchronize()
    close(z, want, 1e-6, 1e-5, "softmax on a side stream")


@cuda
def test_torch_compile_fullgraph():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(256, 256, device="cuda", dtype=torch.float16)
            self.w = torch.nn.Parameter(torch.rand(256, device="cuda", dtype=torch.float16))
            self.b = torch.nn.Parameter(torch.rand(256, device="cuda", dtype=torch.float16))

        def forward(self, x):
            h = tl_torch.layer_norm(self.proj(x), (256, ), self.w, self.b)
            return tl_torch.matmul(h, self.proj.weight.t()).float().relu()

    torch.manual_seed(0)
    model = Block()
    x = torch.randn(64, 256, device="cuda", dtype=torch.float16)
    with torch.no_grad():  # matmul and softmax have no backward
        eager = model(x)
        compiled = torch.compile(model, fullgraph=True)
        close(compiled(x), eager, 1e-2, 1e-2, "torch.compile(fullgraph=True)")
    # Layer norm's backward under compile: gradients as in eager mode
    loss = lambda m, x: tl_torch.layer_norm(m.proj(x), (256, ), m.w, m.b).float().square().sum()
    loss(model, x).backward()
    eager_grad = model.w.grad.clone()
    model.w.grad = None
    torch.compile(loss, fullgraph=True)(model, x).backward()
    close(model.w.grad.float(), eager_grad.float(), 1e-1, 2e-2, "layer norm's weight gradient under torch.compile")


def test_fake_tensors():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(5, 7, 96)
        y, mean, rstd = torch.ops.tl_torch.layer_norm_fwd(x, torch.empty(96), torch.empty(96), 1e-5)
        assert y.shape == (5, 7, 96) and mean.shape == (35, ) and rstd.dtype == torch.float32
        assert torch.ops.tl_torch.matmul(torch.empty(3, 4).half(), torch.empty(4, 9).half()).shape == (3, 9)
        assert torch.ops.tl_torch.softmax(torch.empty(6, 10)).shape == (6, 10)
