package domain

// OutputColumns is the header of a model outputs file
// (docs/formats.md): what a generation job writes and an
// explanation-rating study imports.
var OutputColumns = []string{"item_id", "strategy", "model", "output"}
