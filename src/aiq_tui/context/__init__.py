"""Context: token counting, prompt building, budget and compression."""
