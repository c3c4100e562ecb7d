// dgxhost: measure and project the performance and cost of AI workloads (see README.md).
#include "dgx/core/app/app.hpp"

int main(int argc, char** argv) { return dgx::run_app(argc, argv); }
