# Warning and sanitizer flags shared by every Strata target.
add_library(strata_warnings INTERFACE)
target_compile_options(strata_warnings INTERFACE -Wall -Wextra -Wpedantic)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 reports -Wrestrict falsely inside std::string's operator+ at -O3 (GCC bug 105329).
  target_compile_options(strata_warnings INTERFACE -Wno-restrict)
endif()
if(STRATA_WERROR)
  target_compile_options(strata_warnings INTERFACE -Werror)
endif()
if(STRATA_SANITIZE)
  # A target with the property STRATA_UNINSTRUMENTED set (the cli test suite, which only runs the
  # `strata` binary) is compiled without the sanitizers and still links their runtime, so it can
  # call the instrumented libraries.
  set(_instrumented "$<NOT:$<BOOL:$<TARGET_PROPERTY:STRATA_UNINSTRUMENTED>>>")
  target_compile_options(strata_warnings INTERFACE "$<${_instrumented}:-fsanitize=address,undefined>"
                         -fno-omit-frame-pointer "$<${_instrumented}:-fno-sanitize-recover=undefined>")
  # Executables linked without PIE: a sanitized PIE carries about 790,000 relative relocations
  # (the sanitizers' descriptors of globals, types and source places) that the loader applies at
  # every start, a third of a sanitized `strata --version` (188 -> 143 ms task-clock), and the
  # cli tests start `strata` thousands of times.
  target_link_options(strata_warnings INTERFACE -fsanitize=address,undefined -no-pie)
endif()
# (Not exported: every target links it in the build tree only.)

# strata_library(NAME sim ...): one library target per folder, sources globbed from src/,
# public headers under include/strata/<name>/, exported as strata::<name>.
function(strata_library name)
  cmake_parse_arguments(ARG "" "" "PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  if(_srcs)
    add_library(strata_${name} STATIC ${_srcs})
    set_target_properties(strata_${name} PROPERTIES OUTPUT_NAME strata_${name} POSITION_INDEPENDENT_CODE ON)
    target_include_directories(strata_${name}
      PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
      PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
    target_link_libraries(strata_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS} $<BUILD_INTERFACE:strata_warnings>)
    # The public headers are C++20 (defaulted comparisons, std::span): a consumer compiles them
    # so whatever its own standard setting.
    target_compile_features(strata_${name} PUBLIC cxx_std_20)
  else()  # header-only until it has sources
    add_library(strata_${name} INTERFACE)
    target_include_directories(strata_${name}
      INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(strata_${name} INTERFACE ${ARG_PUBLIC_DEPS})
    target_compile_features(strata_${name} INTERFACE cxx_std_20)
  endif()
  set_target_properties(strata_${name} PROPERTIES EXPORT_NAME ${name})
  add_library(strata::${name} ALIAS strata_${name})
  # One export set per library, so that a consumer finds the dependencies of the components it
  # asks for only (find_package(Strata COMPONENTS sim)).
  install(TARGETS strata_${name} EXPORT Strata_${name}_Targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
