## ---- Expert agreement (docs/statistics.md#expert-agreement) ---------------

j <- read_data("judgements.csv")
# Annotators in byte order (as pragmalab sorts them), items in file order.
annotators <- sort(unique(j$annotator_id), method = "radix")
items <- unique(j$item_id)
item_type <- j$item_type[match(items, j$item_id)]
cell <- cbind(match(j$item_id, items), match(j$annotator_id, annotators))
# One matrix per question, items × annotators: 1 yes, 2 no, NA not judged.
# Cancellation counts only where the annotator found the item plausible and
# answered the cancellation question.
plaus <- matrix(NA_integer_, length(items), length(annotators))
plaus[cell] <- ifelse(j$plausible == "yes", 1L, 2L)
canc <- matrix(NA_integer_, length(items), length(annotators))
canc[cell] <- ifelse(j$plausible == "yes" & j$cancellation_correct != "",
                     ifelse(j$cancellation_correct == "yes", 1L, 2L), NA_integer_)
# An item is spoiled for Fleiss' κ on cancellation when an annotator judged
# it but gave no cancellation value.
canc_spoiled <- rowSums(!is.na(plaus) & is.na(canc)) > 0

# binary: raw agreement, Cohen's κ and PABAK from a 2×2 confusion matrix.
binary <- function(conf) {
  n <- sum(conf)
  if (n == 0) return(c(items = 0, raw = NA, kappa = NA, pabak = NA))
  po <- (conf[1, 1] + conf[2, 2]) / n
  pa <- (conf[1, 1] + conf[1, 2]) / n
  pb <- (conf[1, 1] + conf[2, 1]) / n
  pe <- pa * pb + (1 - pa) * (1 - pb)
  c(items = n, raw = po, kappa = if (pe < 1) (po - pe) / (1 - pe) else NA, pabak = 2 * po - 1)
}

# question: every pair's figures, the pooled (summed) matrix, Light's κ
# and Fleiss' κ over the items with the most values (none spoiled).
question <- function(v, spoiled, rows, label, group) {
  out <- list()
  pooled <- matrix(0, 2, 2)
  kappas <- c()
  na <- length(annotators)
  for (a in seq_len(na - 1)) for (b in seq(a + 1, length.out = na - a)) {
    va <- v[rows, a]; vb <- v[rows, b]
    both <- !is.na(va) & !is.na(vb)
    conf <- table(factor(va[both], levels = 1:2), factor(vb[both], levels = 1:2))
    x <- binary(conf)
    pooled <- pooled + conf
    if (!is.na(x["kappa"])) kappas <- c(kappas, x["kappa"])
    out[[length(out) + 1]] <- data.frame(group = group, annotator_a = annotators[a], annotator_b = annotators[b],
                                         question = label, measure = names(x), value = unname(x))
  }
  x <- binary(pooled)
  if (na > 2) x["kappa"] <- NA
  yes <- rowSums(v[rows, , drop = FALSE] == 1, na.rm = TRUE)
  no <- rowSums(v[rows, , drop = FALSE] == 2, na.rm = TRUE)
  m <- yes + no
  ok <- !spoiled[rows]
  most <- if (any(ok)) max(m[ok]) else 0
  fleiss <- NA; f_items <- 0
  if (na >= 2 && most >= 2) {
    f <- ok & m == most
    f_items <- sum(f)
    p_bar <- mean((yes[f] * (yes[f] - 1) + no[f] * (no[f] - 1)) / (most * (most - 1)))
    p_yes <- sum(yes[f]) / (f_items * most)
    pe <- p_yes^2 + (1 - p_yes)^2
    if (pe < 1) fleiss <- (p_bar - pe) / (1 - pe)
  }
  x <- c(x, lights_kappa = if (length(kappas) > 0) mean(kappas) else NA,
         fleiss_kappa = fleiss, fleiss_items = f_items, fleiss_raters = if (most >= 2) most else 0)
  out[[length(out) + 1]] <- data.frame(group = group, annotator_a = "", annotator_b = "",
                                       question = label, measure = names(x), value = unname(x))
  do.call(rbind, out)
}

groups <- c(unique(item_type[item_type != ""]), "all")
agreement <- do.call(rbind, lapply(groups, function(g) {
  rows <- if (g == "all") seq_along(items) else which(item_type == g)
  rbind(question(plaus, rep(FALSE, length(items)), rows, "plausibility", g),
        question(canc, canc_spoiled, rows, "cancellation", g))
}))
cat(sprintf("Annotators: %s; items: %d\n", paste(annotators, collapse = ", "), length(items)))
show(agreement[agreement$annotator_a == "", c("group", "question", "measure", "value")], c("group", "question"), "measure",
     "Agreement (raw and PABAK pool the pairs; kappa is Cohen's with two annotators only)")
show(agreement[agreement$annotator_a != "" & agreement$group == "all", ], c("annotator_a", "annotator_b", "question"), "measure",
     "Agreement per pair, all items")
write_results(agreement, "agreement_r.csv")
compare_with_pragmalab(agreement, "agreement_pragmalab.csv", c("group", "annotator_a", "annotator_b", "question", "measure"))
