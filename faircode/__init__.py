"""faircode: fairness audits with honest statistics.

The public surface is re-exported here; the work lives in the submodules.
"""

__version__ = "0.1.0"
