"""The conversation agent: tool loop (agent.py), prompt builder (prompt.py) and tools (tools.py)."""
