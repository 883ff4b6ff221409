"""Skills as files: model, parse, validate, discover, catalog, store, resources, registry/executor."""
