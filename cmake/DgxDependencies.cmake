# Third-party dependencies, all from Debian packages (see README.md).

# Boost.DLL is header-only; with BOOST_DLL_USE_STD_FS it uses std::filesystem and needs no Boost.Filesystem.
if(DGX_STATIC_DEPS)
  set(Boost_USE_STATIC_LIBS ON)
endif()
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
add_library(dgx_boost_dll INTERFACE)
target_link_libraries(dgx_boost_dll INTERFACE Boost::headers ${CMAKE_DL_LIBS})
target_compile_definitions(dgx_boost_dll INTERFACE BOOST_DLL_USE_STD_FS)
add_library(dgx::boost_dll ALIAS dgx_boost_dll)

# toml++: Debian ships it as a shared library; device builds compile it header-only instead.
find_package(tomlplusplus 3 REQUIRED)
add_library(dgx_toml INTERFACE)
if(DGX_STATIC_DEPS)
  get_target_property(_toml_includes tomlplusplus::tomlplusplus INTERFACE_INCLUDE_DIRECTORIES)
  target_include_directories(dgx_toml SYSTEM INTERFACE ${_toml_includes})
  target_compile_definitions(dgx_toml INTERFACE TOML_HEADER_ONLY=1)
else()
  target_link_libraries(dgx_toml INTERFACE tomlplusplus::tomlplusplus)
endif()
add_library(dgx::toml ALIAS dgx_toml)

# nlohmann/json reads and writes the host's JSON (core/src/json.cpp); header-only, so every preset can use it.
find_package(nlohmann_json 3.10 REQUIRED)

# The results store (core/src/store): SQLite from libsqlite3-dev, always (a static build links its archive);
# PostgreSQL's client library libpq from libpq-dev where found (not in static builds: it pulls in OpenSSL and
# Kerberos), else `--store postgresql://...` says this dgxhost was built without it.
add_library(dgx_sqlite3 INTERFACE)
if(DGX_STATIC_DEPS)
  find_library(DGX_SQLITE3_ARCHIVE NAMES libsqlite3.a REQUIRED)
  find_package(Threads REQUIRED)
  target_link_libraries(dgx_sqlite3 INTERFACE "${DGX_SQLITE3_ARCHIVE}" Threads::Threads ${CMAKE_DL_LIBS} m)
else()
  find_package(SQLite3 REQUIRED)
  target_link_libraries(dgx_sqlite3 INTERFACE SQLite::SQLite3)
endif()
add_library(dgx::sqlite3 ALIAS dgx_sqlite3)

set(DGX_HAVE_LIBPQ OFF)
if(NOT DGX_STATIC_DEPS)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(DGX_LIBPQ IMPORTED_TARGET GLOBAL libpq)
    if(DGX_LIBPQ_FOUND)
      set(DGX_HAVE_LIBPQ ON)
      add_library(dgx::libpq ALIAS PkgConfig::DGX_LIBPQ)
    endif()
  endif()
endif()

set(DGX_HAVE_MPI OFF)
if(DGX_WITH_MPI AND NOT DGX_STATIC_DEPS)
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    set(DGX_HAVE_MPI ON)
  endif()
endif()

if(DGX_BUILD_TESTS)
  find_package(doctest 2.4 REQUIRED)
  include(doctest)
endif()
