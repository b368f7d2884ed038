"""The reference RMSNorm, shaped like the formula: its checks and typed errors, the forward
with its intermediates, the backward, the layer and its named parameters, the tape and the
gradient check, the baselines it is contrasted with and the chapter's way of writing numbers.
Imports nothing of the course above it, the engine, widgets or plotting."""
