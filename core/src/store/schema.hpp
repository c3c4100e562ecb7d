// Private to the store: its tables, one list of migrations from an empty database to kStoreSchemaVersion, and
// opening a database as a store (creating or migrating it, refusing what it cannot read).
#pragma once

#include <optional>

#include "database.hpp"

namespace dgx::detail {

/// Creates the schema in an empty database, migrates an older store, refuses a newer one or a database that
/// holds something else. Serialised against other processes opening the same store.
std::optional<Failure> prepare_schema(Database& db);

/// For reading only: the database is a store of this version or an older one, which is read as it is (an empty or
/// foreign one, or a newer one, is a usage failure naming what to do).
std::optional<Failure> check_schema(Database& db);

/// The schema version a database records (0: none).
Expected<int> schema_version(Database& db);

}  // namespace dgx::detail
