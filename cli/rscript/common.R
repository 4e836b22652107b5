## ---- Helpers -------------------------------------------------------------

# here is the directory holding this script and its data: Rscript passes the
# script as --file= (with spaces written as ~+~); source() in a session
# falls back to the working directory.
here <- local({
  arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(arg) == 1) {
    dirname(normalizePath(gsub("~+~", " ", sub("^--file=", "", arg), fixed = TRUE)))
  } else {
    getwd()
  }
})

# read_data reads one of the CSV files next to this script, every column as
# text (an id such as "NA" or "007" stays what it is).
read_data <- function(name) {
  read.csv(file.path(here, name), colClasses = "character", na.strings = character(0),
           fileEncoding = "UTF-8", check.names = FALSE)
}

# write_results writes a long table (key columns, then value) with every
# number at full precision (17 significant digits, so it reads back exactly)
# and an undefined value as an empty cell.
write_results <- function(df, name) {
  v <- as.numeric(df$value)
  df$value <- ifelse(is.na(v), "", sprintf("%.17g", v))
  write.csv(df, file.path(here, name), row.names = FALSE, fileEncoding = "UTF-8")
  cat("Written:", file.path(here, name), "\n")
}

# show prints a long table rounded for reading (the CSV keeps every digit).
show <- function(df, title) {
  cat("\n==", title, "==\n")
  out <- df
  out$value <- vapply(as.numeric(df$value), function(v) if (is.na(v)) "-" else format(signif(v, 4)), "")
  print(out, row.names = FALSE, right = FALSE)
}

# compare_with_pragmalab prints how far this script's values are from the
# ones pragmalab computed (the *_pragmalab.csv file), key by key.
compare_with_pragmalab <- function(df, name, keys) {
  theirs <- read_data(name)
  m <- merge(df, theirs, by = keys, all = TRUE, suffixes = c(".r", ".pragmalab"), sort = FALSE)
  a <- suppressWarnings(as.numeric(m$value.r))
  b <- suppressWarnings(as.numeric(m$value.pragmalab))
  undefined_differs <- is.na(a) != is.na(b)
  diff <- ifelse(is.na(a) | is.na(b), 0, abs(a - b))
  bad <- undefined_differs | diff > 1e-9
  cat(sprintf("\nCompared with pragmalab (%s): %d values, largest difference %.3g, %d differ by more than 1e-9 or in being undefined.\n",
              name, nrow(m), max(c(0, diff)), sum(bad)))
  if (any(bad)) print(m[bad, ], row.names = FALSE)
  invisible(!any(bad))
}

