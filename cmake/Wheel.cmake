# The wheel build's split (scripts/build-wheels.sh): kprof's C++ layers do not depend on the Python
# version except the sources that include pybind11 (the python/ layer, the Python kernels, the
# reference call, the module). KPROF_WHEEL_PART chooses:
#   ""        the whole build (developers, the sdist's `pip install`)
#   "common"  the layer libraries WITHOUT the Python-dependent sources, built once for all Pythons
#   "module"  the extension module of one Python: the Python-dependent sources compiled for it,
#             linked against the "common" libraries found in KPROF_COMMON_DIR
set(KPROF_WHEEL_PART "" CACHE STRING "wheel build split: empty, common or module (scripts/build-wheels.sh)")
set(KPROF_COMMON_DIR "" CACHE PATH "build folder of the KPROF_WHEEL_PART=common build (module part)")
if(KPROF_WHEEL_PART STREQUAL "module" AND NOT EXISTS "${KPROF_COMMON_DIR}/libkprof_core.a")
  message(FATAL_ERROR "kprof: KPROF_WHEEL_PART=module needs KPROF_COMMON_DIR with the common build's libraries")
endif()

# The Python-dependent sources: those that include pybind11 or Python.h, directly or through a
# header of kprof's that does (two levels of kprof headers are followed).
file(GLOB_RECURSE _kprof_all_headers ${CMAKE_SOURCE_DIR}/src/*.hpp)
file(GLOB_RECURSE _kprof_all_sources ${CMAKE_SOURCE_DIR}/src/*.cpp)
set(_kprof_py_pattern "#include [<\"](pybind11/|Python\\.h)")
set(_kprof_py_headers)
foreach(_pass 1 2 3)
  foreach(_h IN LISTS _kprof_all_headers)
    file(STRINGS ${_h} _hits REGEX "${_kprof_py_pattern}")
    if(_hits)
      list(APPEND _kprof_py_headers ${_h})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _kprof_py_headers)
  set(_kprof_py_pattern "#include [<\"](pybind11/|Python\\.h")
  foreach(_h IN LISTS _kprof_py_headers)
    file(RELATIVE_PATH _rel ${CMAKE_SOURCE_DIR}/src ${_h})
    string(REPLACE "." "\\." _rel ${_rel})
    string(APPEND _kprof_py_pattern "|${_rel}")
  endforeach()
  string(APPEND _kprof_py_pattern ")")
endforeach()
set(KPROF_PY_SOURCES)
foreach(_s IN LISTS _kprof_all_sources)
  file(STRINGS ${_s} _hits REGEX "${_kprof_py_pattern}")
  if(_hits)
    list(APPEND KPROF_PY_SOURCES ${_s})
  endif()
endforeach()

# kprof_wheel_layer(target below sources...): in the "module" part, `target` becomes the common
# build's library (imported; an interface library where the layer is all Python-dependent) and its
# Python-dependent sources are collected for the module; returns KPROF_LAYER_DONE true then. In the
# "common" part it returns the sources less the Python-dependent ones in KPROF_LAYER_SOURCES.
function(kprof_wheel_layer target below)
  set(srcs ${ARGN})
  set(py ${srcs})
  list(REMOVE_ITEM srcs ${KPROF_PY_SOURCES})
  list(REMOVE_ITEM py ${srcs})
  set(KPROF_LAYER_DONE FALSE PARENT_SCOPE)
  if(KPROF_WHEEL_PART STREQUAL "module")
    set(lib "${KPROF_COMMON_DIR}/lib${target}.a")
    if(EXISTS "${lib}")
      add_library(${target} STATIC IMPORTED GLOBAL)
      set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${lib}" INTERFACE_LINK_LIBRARIES "${below}")
    else()
      add_library(${target} INTERFACE)
      target_link_libraries(${target} INTERFACE ${below})
    endif()
    set_property(GLOBAL APPEND PROPERTY KPROF_MODULE_PY_SOURCES ${py})
    set(KPROF_LAYER_DONE TRUE PARENT_SCOPE)
  elseif(KPROF_WHEEL_PART STREQUAL "common")
    set(KPROF_LAYER_SOURCES ${srcs} PARENT_SCOPE)
  else()
    set(KPROF_LAYER_SOURCES ${ARGN} PARENT_SCOPE)
  endif()
endfunction()
