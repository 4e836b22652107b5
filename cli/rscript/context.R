## ---- Context analysis (docs/statistics.md#context-analysis) ---------------

a <- read_data("answers.csv")
# The 7 answer categories: 0-5 added sentences when sufficient, 6 for
# insufficient (whatever the number of sentences shown).
a$category <- ifelse(a$sufficient == "yes", as.integer(a$sentences), 6L)
# An item is a passage of a survey: the same passage in two surveys is two items.
key <- paste(a$survey_id, a$item_id, sep = "\r")
keys <- unique(key)
first <- match(keys, key)
item_survey <- a$survey_id[first]
item_kind <- a$kind[first]
item_period <- a$period[first]
counts <- unclass(table(factor(key, levels = keys), factor(a$category, levels = 0:6)))

# context_stats: the measures over the items (rows of counts) in rows.
context_stats <- function(rows) {
  x <- counts[rows, , drop = FALSE]
  n <- rowSums(x)
  most <- max(n)
  fleiss <- NA; f_items <- 0
  if (most >= 2) {
    f <- n == most
    f_items <- sum(f)
    p_i <- rowSums(x[f, , drop = FALSE] * (x[f, , drop = FALSE] - 1)) / (most * (most - 1))
    p_j <- colSums(x[f, , drop = FALSE]) / (f_items * most)
    pe <- sum(p_j^2)
    if (pe < 1) fleiss <- (mean(p_i) - pe) / (1 - pe)
  }
  multi <- n >= 2
  top <- apply(x, 1, max)
  within <- t(apply(x[, 1:6, drop = FALSE], 1, cumsum))
  if (nrow(x) == 1) within <- matrix(within, nrow = 1)
  v <- data.frame(measure = c("items", "judgements", "fleiss_kappa", "fleiss_items", "fleiss_raters",
                              "full_consensus", "majority_consensus", "consensus_items"),
                  k = "",
                  value = c(nrow(x), sum(n), fleiss, f_items, if (most >= 2) most else 0,
                            if (any(multi)) mean(top[multi] == n[multi]) else NA,
                            if (any(multi)) mean(top[multi] < n[multi] & 2 * top[multi] > n[multi]) else NA,
                            sum(multi)))
  cum <- data.frame(measure = rep(c("cumulative_judgements", "cumulative_items"), each = 6),
                    k = rep(0:5, 2),
                    value = c(colSums(within) / sum(n),
                              colMeans(2 * within > n)))
  rbind(v, cum)
}

with_group <- function(df, group, survey = "", kind = "", period = "") {
  data.frame(group = group, survey = survey, kind = kind, period = period, df)
}
surveys <- unique(item_survey)
parts <- list(with_group(context_stats(seq_along(keys)), "overall"))
for (s in surveys) parts[[length(parts) + 1]] <- with_group(context_stats(which(item_survey == s)), "survey", survey = s)
for (kd in sort(unique(item_kind), method = "radix")) {
  for (p in c(sort(unique(item_period[item_kind == kd]), method = "radix"), "all")) {
    rows <- which(item_kind == kd & (p == "all" | item_period == p))
    parts[[length(parts) + 1]] <- with_group(context_stats(rows), "kind_period", kind = kd, period = p)
  }
}
context <- do.call(rbind, parts)
cat(sprintf("Answers: %d on %d items in %d surveys\n", nrow(a), length(keys), length(surveys)))
scope <- c("group", "survey", "kind", "period")
show(context[context$k == "", c(scope, "measure", "value")], scope, "measure", "Context: agreement and consensus")
cum <- context[context$k != "", ]
show(cum[cum$measure == "cumulative_judgements", c(scope, "k", "value")], scope, "k",
     "Share of judgements sufficient with at most k added sentences")
show(cum[cum$measure == "cumulative_items", c(scope, "k", "value")], scope, "k",
     "Share of items a majority found sufficient with at most k added sentences")
write_results(context, "context_r.csv")
compare_with_pragmalab(context, "context_pragmalab.csv", c("group", "survey", "kind", "period", "measure", "k"))
