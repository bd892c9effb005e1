"""The passes between tile IR and code: simplify (any target), then layout, coalesce, shared, barriers."""
