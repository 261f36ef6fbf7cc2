"""sitebuild: the build pipeline that turns executable Markdown explainers into a static site.

One module per stage, plain data in and out: read, extract, execute, check, render, write.
It knows nothing about fairness; whatever a site needs beyond its pages (for example
regenerating results/) is a configured step in the site's ``site.yaml``.
"""

__version__ = "0.1.0"
