// The communicator of the two-rank MPI tests: made by mpi_comm_main.cpp before any test case runs.
#pragma once

#include "dgx/core/distributed/comm.hpp"

namespace dgx::testing {

HostComm& mpi_world();

}  // namespace dgx::testing
