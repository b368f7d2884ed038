"""One BLAS thread for the studies' small matrix products.

The studies multiply small matrices (tens to a thousand wide). A BLAS library
starts a thread per core for each product; when the cores are busy with other
work (a second build, a browser, a shared Binder machine), those threads wait on
each other and a product can take tens of times longer than on one thread. Every
study that multiplies matrices therefore runs under ``one_blas_thread``, which
sets the limit for the call and restores the caller's after it (threadpoolctl,
the library made for this).
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits

one_blas_thread = threadpool_limits.wrap(limits=1, user_api="blas")
