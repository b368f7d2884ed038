"""The real model, SmolLM2-135M: its file reader, the numpy forward pass shaped like the
model, and what the chapter measures on it."""
