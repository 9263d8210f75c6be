extensions = ["infralens.sphinx"]
exclude_patterns = ["_build", "src", "labs", "annotations", "reports"]
infralens_project_root = "."
infralens_sources = {"toypkg": "src"}
infralens_reports_dir = "reports"
infralens_upstream_urls = {"toypkg": "https://example.org/toypkg/v{version}/{relpath}#L{start}-L{end}"}
infralens_fold_min_lines = 6
myst_enable_extensions = ["dollarmath"]
