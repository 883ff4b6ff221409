"""Skills: model, parse, validate, discover, store, match, disclose, registry/executor."""
