# Locates kprof's dependencies and gathers them in the interface target `kprof_deps`.
#
# Three sources, tried in order:
#   0. <source>/third_party (only in an sdist, filled by scripts/make-sdist.sh): include/ (CLI11,
#      nlohmann/json, fmt, ffi.h) and lib/libffi_pic.a, with their licences (third_party/LICENSES).
#   1. KPROF_DEPS_DIR (default: <source>/.deps, filled by scripts/prepare-offline-deps.sh):
#      include/ (CLI11, nlohmann/json, fmt, ffi.h) and googletest/ sources, for an offline machine
#      that lacks the Debian -dev packages.
#   2. The system (Debian: libcli11-dev nlohmann-json3-dev libfmt-dev libffi-dev
#      pybind11-dev libgtest-dev python3-dev; see README.md "Install").
set(KPROF_DEPS_DIR "${CMAKE_SOURCE_DIR}/.deps" CACHE PATH "Folder prepared by scripts/prepare-offline-deps.sh")

add_library(kprof_deps INTERFACE)
set(_kprof_hints "${CMAKE_SOURCE_DIR}/third_party/include" "${KPROF_DEPS_DIR}/include" /usr/include
    /usr/include/x86_64-linux-gnu)

function(kprof_require_header var header what)
  find_path(${var} ${header} HINTS ${_kprof_hints})
  if(NOT ${var})
    message(FATAL_ERROR "kprof: ${what} not found (${header}). Install it (README.md, Install) "
                        "or run scripts/prepare-offline-deps.sh and pass -DKPROF_DEPS_DIR=...")
  endif()
  target_include_directories(kprof_deps SYSTEM INTERFACE ${${var}})
endfunction()

kprof_require_header(KPROF_CLI11_INC CLI/CLI.hpp "CLI11 (Debian: libcli11-dev)")
kprof_require_header(KPROF_JSON_INC nlohmann/json.hpp "nlohmann/json (Debian: nlohmann-json3-dev)")
kprof_require_header(KPROF_FMT_INC fmt/format.h "fmt (Debian: libfmt-dev)")
kprof_require_header(KPROF_FFI_INC ffi.h "libffi headers (Debian: libffi-dev)")
# fmt in its compiled mode, its compiled part built once by kprof itself (src/core/fmt_impl.cpp,
# from fmt's own format-inl.h): the same code builds against the Debian package's headers and the
# carried ones, with no libfmt binary (header-only mode cost about 40% of each file's compile time).

# The Python extension links libffi statically (libffi_pic.a, position-independent: Debian's
# libffi-dev ships it, and the sdist carries it), so the wheel needs no libffi.so.8 and no glibc
# newer than libffi's own (GLIBC_2.27, memfd_create); the executable links the shared library.
if(KPROF_PYTHON_MODULE)
  set(_kprof_ffi_names libffi_pic.a ffi)
else()
  set(_kprof_ffi_names ffi libffi.so.8 libffi.so.7)
endif()
find_library(KPROF_FFI_LIB NAMES ${_kprof_ffi_names}
             HINTS "${CMAKE_SOURCE_DIR}/third_party/lib" "${KPROF_DEPS_DIR}/lib" /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib)
if(NOT KPROF_FFI_LIB)
  message(FATAL_ERROR "kprof: libffi not found (Debian: libffi-dev)")
endif()
target_link_libraries(kprof_deps INTERFACE ${KPROF_FFI_LIB})
# A kernel .so's ELF header and symbols are read by kprof itself (src/kernel/elf_check.cpp, glibc's
# <elf.h>): no libelf.

# ---- Python and pybind11 -----------------------------------------------------------------------
# The executable embeds Python (Development.Embed, links libpython). The Python package's extension
# module (KPROF_PYTHON_MODULE, set by scikit-build-core) runs inside the user's Python and links no
# libpython (Development.Module): kprof's static libraries only see Python's headers.
if(KPROF_PYTHON_MODULE)
  find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
  set(Python_EXECUTABLE ${Python3_EXECUTABLE})  # pybind11's own FindPython looks at these names
  set(PYBIND11_FINDPYTHON ON)
else()
  find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Embed)
endif()
# The pybind11 of the Python kprof is built for comes first (PyPI's, the package's build requirement),
# then the system's (Debian: pybind11-dev).
execute_process(COMMAND ${Python3_EXECUTABLE} -m pybind11 --cmakedir
                OUTPUT_VARIABLE _pyb_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(_pyb_dir)
  find_package(pybind11 CONFIG REQUIRED PATHS ${_pyb_dir} NO_DEFAULT_PATH)
else()
  find_package(pybind11 CONFIG QUIET)
  if(NOT pybind11_FOUND)
    message(FATAL_ERROR "kprof: pybind11 not found (Debian: pybind11-dev, or pip install pybind11)")
  endif()
endif()
if(KPROF_PYTHON_MODULE)
  target_link_libraries(kprof_deps INTERFACE pybind11::headers Python3::Module)
else()
  target_link_libraries(kprof_deps INTERFACE pybind11::embed)
endif()
# The interpreter kprof embeds: its real path (not a pyenv shim), so the embedded Python finds the
# same prefix and virtual environment (pyvenv.cfg) as that interpreter.
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sys; print(sys.executable)"
                OUTPUT_VARIABLE KPROF_PYTHON_REAL OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT KPROF_PYTHON_REAL)
  set(KPROF_PYTHON_REAL ${Python3_EXECUTABLE})
endif()

# ---- CUDA runtime (static: it loads libcuda itself, at run time) and CUPTI --------------------
find_package(CUDAToolkit REQUIRED)
# CUPTI is never linked: src/device/cupti_loader.cpp dlopen()s a libcupti.so.13 at run time (one
# already in the process, KPROF_CUPTI_DIR, kprof's cache, the folder below, PyTorch's wheel, the
# toolkit's), so kprof starts without CUPTI and uses a newer one for the L2 reset when present.
# kprof compiles against the toolkit's CUPTI headers. The source build prefers a libcupti.so.13 of
# CUPTI 13.4+ from PyPI (nvidia-cuda-cupti) in .cupti/ (scripts/setup.sh --cupti) or in the Python
# kprof embeds, or the one KPROF_CUPTI_DIR names here: its folder is compiled in as
# KPROF_BUILD_CUPTI_DIR (not in the Python package, whose build folder is gone after the build).
set(KPROF_CUPTI_DIR "" CACHE PATH "directory of a libcupti.so.13 to load before the toolkit's (PyPI nvidia-cuda-cupti)")
set(_kprof_cupti_dir "${KPROF_CUPTI_DIR}")
set(_kprof_cupti_version "")
if(NOT _kprof_cupti_dir AND NOT KPROF_PYTHON_MODULE)
  # The wheel's version from its metadata (.cupti/ first, then kprof's Python); only 13.4+ is used.
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c "
import importlib.metadata as m, os, sys
for path in ([sys.argv[1]], None):
    try:
        d = next(iter(m.distributions(name='nvidia-cuda-cupti', **({'path': path} if path else {}))))
    except StopIteration:
        continue
    v = d.version
    lib = os.path.join(str(d.locate_file('nvidia')), 'cu13', 'lib')
    if tuple(int(x) for x in v.split('.')[:2]) >= (13, 4) and os.path.exists(os.path.join(lib, 'libcupti.so.13')):
        print(lib + ';' + v)
        break
" "${CMAKE_SOURCE_DIR}/.cupti"
    OUTPUT_VARIABLE _kprof_wheel_cupti OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_kprof_wheel_cupti)
    list(GET _kprof_wheel_cupti 0 _kprof_cupti_dir)
    list(GET _kprof_wheel_cupti 1 _kprof_cupti_version)
  endif()
endif()
target_link_libraries(kprof_deps INTERFACE CUDA::cudart_static ${CMAKE_DL_LIBS} pthread)
target_include_directories(kprof_deps SYSTEM INTERFACE ${CUDAToolkit_INCLUDE_DIRS})
if(EXISTS "${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include")
  target_include_directories(kprof_deps SYSTEM INTERFACE "${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include")
endif()
if(_kprof_cupti_dir AND EXISTS "${_kprof_cupti_dir}/libcupti.so.13")
  target_compile_definitions(kprof_deps INTERFACE KPROF_BUILD_CUPTI_DIR="${_kprof_cupti_dir}")
  set(_kprof_cupti_status "CUPTI loaded at run time, ${_kprof_cupti_version} (${_kprof_cupti_dir}) first")
else()
  if(KPROF_CUPTI_DIR)
    message(FATAL_ERROR "kprof: KPROF_CUPTI_DIR=${KPROF_CUPTI_DIR} has no libcupti.so.13")
  endif()
  set(_kprof_cupti_status "CUPTI loaded at run time (the toolkit's or PyTorch's; scripts/setup.sh --cupti: 13.4+ with its L2 reset)")
endif()
target_compile_definitions(kprof_deps INTERFACE KPROF_CUDA_BIN_DIR="${CUDAToolkit_BIN_DIR}")

message(STATUS "kprof: Python ${Python3_VERSION} (${Python3_EXECUTABLE}), pybind11 ${pybind11_VERSION}, "
               "CUDA ${CUDAToolkit_VERSION}, ${_kprof_cupti_status}, libffi ${KPROF_FFI_LIB}")
