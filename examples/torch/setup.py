"""tl_torch: Triton's tutorial kernels written in tl, as PyTorch operators.

    python3 -m pip install --no-build-isolation examples/torch        (from the repository's root)

Compiles csrc/ with torch.utils.cpp_extension against the torch already installed (hence no build
isolation) and the tl headers of this checkout. The GPU architecture: TL_TORCH_ARCH (e.g. "90a",
"80"), else the first GPU's (sm_90a on Hopper, whose wgmma tl's dots use), else 90a. MAX_JOBS
sets the parallel compilations (default: every core).
"""
import os
import pathlib

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

here = pathlib.Path(__file__).resolve().parent
os.chdir(here)
root = here.parent.parent


def arch():
    if os.environ.get("TL_TORCH_ARCH"):
        return os.environ["TL_TORCH_ARCH"]
    try:
        import torch
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability(0)
            return f"{major}{minor}" + ("a" if (major, minor) == (9, 0) else "")
    except Exception:  # no driver: the default below
        pass
    return "90a"


os.environ.setdefault("MAX_JOBS", str(os.cpu_count() or 4))
sm = arch()
csrc = here / "csrc"
sources = ["bindings.cpp"] + sorted(p.name for p in csrc.glob("*.cu"))
nvcc = [
    "-std=c++20", "-O3", "--expt-relaxed-constexpr", f"-gencode=arch=compute_{sm},code=sm_{sm}",
    # torch's defaults take away __half's operators and conversions, which tl's fp16 uses
    "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__", "-U__CUDA_NO_HALF2_OPERATORS__",
    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__", "-DNDEBUG",
]
setup(
    name="tl_torch",
    version="0.1.0",
    description="Triton's tutorial kernels written in tl, as PyTorch operators",
    packages=["tl_torch"],
    ext_modules=[
        CUDAExtension(
            name="tl_torch._C",
            sources=[f"csrc/{s}" for s in sources],  # relative to this file, as setuptools wants
            include_dirs=[str(root / "include"), str(root / "examples" / "tutorials"), str(csrc)],
            extra_compile_args={"cxx": ["-std=c++20", "-O2", "-DNDEBUG"], "nvcc": nvcc},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
