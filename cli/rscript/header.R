# analysis.R — the R companion of `pragmalab {{.Program}}`.
#
# Written by pragmalab {{.Version}} with the command
#   {{.CommandLine}}
#
# What it does
{{.What}}#
# It uses base R only{{if .Ordinal}}, except for the mixed model, which needs the ordinal
# package (install.packages("ordinal"); it is skipped with a message without it){{end}}.
# The definitions it follows are in pragmalab's docs/statistics.md; the files
# it reads and writes are described in docs/formats.md#r-companion.
#
# How to run it, from any working directory (it finds its files next to itself):
#   Rscript {{.Script}}
# or, in an R session, setwd() to this directory and source("analysis.R").

