"""The maths: checks and errors, the reference arithmetic, the fast path, the layer,
parameters, the tape, gradient checking and the baselines. Imports nothing from the
course's layers above it (studies, questions, views), nor from any other package."""
