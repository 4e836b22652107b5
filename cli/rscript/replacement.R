
## ---- The model in each expert's place: ΔA (docs/statistics.md#expert-replacement)

# Krippendorff's α with the nominal metric over the items (units), by hand
# from the coincidence matrix (kripp_alpha, with the helpers): a unit
# counts when it has at least 2 judgements. The experts' own α, then α
# with the model's choice in one expert's place on the items that expert
# judged (nothing where the model gave none), each expert in turn; ΔA is
# the mean of α with the model less the experts' own. The bootstrap
# interval of ΔA is not recomputed.
judgements <- read_data("judgements.csv")
choices <- read_data("model.csv")
items <- choices$item_id
experts <- unique(judgements$expert)
data <- matrix(NA_real_, length(experts), length(items))
data[cbind(match(judgements$expert, experts), match(judgements$item_id, items))] <- as.numeric(judgements$plausible)
model <- ifelse(choices$choice == "", NA_real_, suppressWarnings(as.numeric(choices$choice)))
vals <- sort(unique(c(data[!is.na(data)], model[!is.na(model)])))

counts_of <- function(rows) {
  m <- matrix(0, ncol(rows), length(vals))
  for (u in seq_len(ncol(rows))) {
    v <- rows[!is.na(rows[, u]), u]
    if (length(v) > 0) m[u, ] <- tabulate(match(v, vals), length(vals))
  }
  m
}

alpha0 <- kripp_alpha(counts_of(data), "nominal")
per_expert <- do.call(rbind, lapply(seq_along(experts), function(e) {
  rows <- data
  rows[e, ] <- ifelse(is.na(data[e, ]), NA, model)
  a <- kripp_alpha(counts_of(rows), "nominal")
  data.frame(expert = experts[e], measure = c("alpha", "delta_a", "units_replaced"),
             value = c(a, a - alpha0, sum(!is.na(data[e, ]) & !is.na(model))), stringsAsFactors = FALSE)
}))
deltas <- per_expert$value[per_expert$measure == "delta_a"]
replacement <- rbind(data.frame(expert = "", measure = c("units", "alpha_experts", "delta_a"),
                                value = c(length(items), alpha0, mean(deltas)), stringsAsFactors = FALSE),
                     per_expert)
show(per_expert, "expert", "measure", sprintf("The model in each expert's place (α of the experts %s, ΔA %s)",
                                              format(signif(alpha0, 4)), format(signif(mean(deltas), 4))))
write_results(replacement, "replacement_r.csv")
compare_with_pragmalab(replacement, "replacement_pragmalab.csv", c("expert", "measure"))
