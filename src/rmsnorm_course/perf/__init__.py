"""What RMSNorm costs on the machine at hand: the cache-blocked kernel, the caches the host
reports, the timings and the roofline. Used by the cost pages and ``benchmarks/`` only."""
