## ---- Helpers -------------------------------------------------------------

options(width = 160)

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

# unquote undoes pragmalab's formula-cell quoting (docs/formats.md#formula-cells):
# a text cell that a spreadsheet would run as a formula (starting with
# = + - @, a tab or a carriage return, after any single quotes, and not a
# plain number) was written with one more single quote in front.
unquote <- function(x) {
  needs_quote <- function(s) {
    rest <- sub("^'+", "", s)
    grepl("^[-=+@\t\r]", rest) &
      (nchar(rest, "bytes") != nchar(s, "bytes") |
         !grepl("^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$", s))
  }
  rest <- substring(x, 2)
  quoted <- startsWith(x, "'") & nchar(x, "bytes") > 1 & needs_quote(rest)
  x[quoted] <- rest[quoted]
  x
}

# read_data reads one of the CSV files next to this script, every column as
# text (an id such as "NA" or "007" stays what it is), marked as UTF-8
# whatever the locale, formula-cell quoting undone.
read_data <- function(name) {
  df <- read.csv(file.path(here, name), colClasses = "character", na.strings = character(0),
                 encoding = "UTF-8", check.names = FALSE)
  df[] <- lapply(df, unquote)
  df
}

# write_data writes a data frame as CSV next to this script: UTF-8 bytes
# whatever the locale, every field quoted, numbers at full precision (17
# significant digits, so they read back exactly), NA as an empty cell.
write_data <- function(df, name) {
  field <- function(x) {
    x <- if (is.numeric(x)) ifelse(is.na(x), "", sprintf("%.17g", x)) else ifelse(is.na(x), "", enc2utf8(as.character(x)))
    paste0("\"", gsub("\"", "\"\"", x, fixed = TRUE), "\"")
  }
  lines <- c(paste(field(names(df)), collapse = ","), do.call(paste, c(unname(lapply(df, field)), sep = ",")))
  con <- file(file.path(here, name), open = "wb")
  on.exit(close(con))
  writeLines(lines, con, sep = "\n", useBytes = TRUE)
  cat("Written:", file.path(here, name), "\n")
}

# write_results writes a long table (key columns, then value), the value
# as a number.
write_results <- function(df, name) {
  df$value <- as.numeric(df$value)
  write_data(df, name)
}

# show prints a long table as a wide one, rounded for reading (the CSV
# keeps every digit): a row per distinct id, a column per distinct across,
# "-" for undefined.
show <- function(df, id, across, title) {
  cat("\n==", title, "==\n")
  df$value <- vapply(as.numeric(df$value), function(v) if (is.na(v)) "-" else format(signif(v, 4)), "")
  w <- reshape(df[, c(id, across, "value")], idvar = id, timevar = across, direction = "wide")
  names(w) <- sub("^value[.]", "", names(w))
  print(w, row.names = FALSE, right = FALSE)
}

# compare_with_pragmalab prints how far this script's values are from the
# ones pragmalab computed (the *_pragmalab.csv file, or theirs: the rows
# of it to compare), key by key.
compare_with_pragmalab <- function(df, name, keys, theirs = read_data(name)) {
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

# kripp_alpha is Krippendorff's α (Krippendorff 2011) with the nominal,
# interval or ordinal metric, by hand from the coincidence matrix; counts
# has a row per unit and a column per value in order (the ordinal and
# interval metrics take the columns' ranks), and a unit counts when it has
# at least 2 values. NA when there is nothing to compare or no expected
# disagreement.
kripp_alpha <- function(counts, metric) {
  k <- ncol(counts)
  counts <- counts[rowSums(counts) >= 2, , drop = FALSE]
  if (k == 0 || nrow(counts) == 0) return(NA)
  o <- matrix(0, k, k)
  for (u in seq_len(nrow(counts))) {
    nu <- counts[u, ]
    o <- o + (outer(nu, nu) - diag(nu, k)) / (sum(nu) - 1)
  }
  marg <- rowSums(o)
  total <- sum(marg)
  if (total <= 1) return(NA)
  delta2 <- matrix(0, k, k)
  for (c in 1:k) for (d in 1:k) {
    if (c == d) next
    delta2[c, d] <- switch(metric,
      nominal = 1,
      interval = (c - d)^2,
      ordinal = {
        g <- min(c, d):max(c, d)
        (sum(marg[g]) - (marg[c] + marg[d]) / 2)^2
      })
  }
  de <- sum(outer(marg, marg) * delta2)
  if (de == 0) return(NA)
  1 - (total - 1) * sum(o * delta2) / de
}
