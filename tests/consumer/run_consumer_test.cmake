# Installs tl from SOURCE_DIR into a scratch prefix, then configures, builds and runs the
# consumer project against it. Run by CTest (tests/CMakeLists.txt).
set(build ${WORK_DIR}/tl-build)
set(prefix ${WORK_DIR}/prefix)
set(consumer ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  message("${out}")
endfunction()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
    -DTL_BUILD_TESTS=OFF -DTL_BUILD_PUZZLES=OFF -DCMAKE_INSTALL_PREFIX=${prefix})
run(${CMAKE_COMMAND} --install ${build})
if(NOT EXISTS ${prefix}/include/tl/tl.hpp)
  message(FATAL_ERROR "the install did not put tl/tl.hpp under ${prefix}/include")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${consumer} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${consumer})
run(${consumer}/consumer)
run(${consumer}/consumer_compiled_runtime)
