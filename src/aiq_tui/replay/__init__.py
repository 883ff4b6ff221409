"""Session replay: the engine's events saved per turn, and the state rebuilt at any point."""
