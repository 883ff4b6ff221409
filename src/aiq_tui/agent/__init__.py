"""The agent: engine (turn loop), events, sessions."""
