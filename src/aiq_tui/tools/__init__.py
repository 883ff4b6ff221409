"""Agent tools and the safety policy they share."""
