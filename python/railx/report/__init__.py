"""`railx report`: every reproduction and any sweep of a result store as one self-contained HTML
page (inline SVG figures, no network access needed), with each figure as PNG and each table as
CSV beside it. Modules: `catalogue` (the reproductions and their claims), `reproductions`
(railx's figure and verdict table for each), `sweeps` (any sweep's table and plots chosen from
its axes), `network` (the OCS wiring picture), `plots`, `tables`, `prose` (explanations from the
docs), `page` (assembly) and `build` (the command's work)."""

from railx.report.build import ReportSummary, build_report
from railx.report.catalogue import Reproduction, catalogue

__all__ = ["ReportSummary", "Reproduction", "build_report", "catalogue"]
