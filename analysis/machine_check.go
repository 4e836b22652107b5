package analysis

// MachineColumn is the optional last column of a ratings file
// (docs/formats.md#ratings-export): 1 or 0 when the screen carried the
// hidden instruction (docs/studies.md#machine-instruction) and the rating
// obeyed it or not, empty elsewhere. The analysis does not use it; a
// reader checks it, so a file from the platform reads back.
const MachineColumn = "machine_instruction"

// ExportTail are the optional columns that end a ratings export, in
// order (docs/formats.md#ratings-export): the item's version, the trace,
// the integrity signals and machine_instruction, at MachineInTail from
// the first. A reader checks them, so a file from the platform reads back.
var ExportTail = append(append(append([]string{ItemVersionColumn}, TraceColumns...), SignalColumns...), MachineColumn)

// MachineInTail is machine_instruction's offset in ExportTail.
var MachineInTail = len(ExportTail) - 1

// CheckMachine checks the machine_instruction field at index k of the
// current row: empty, 0 or 1.
func (t *Input) CheckMachine(k int) error {
	if k >= len(t.Row) {
		return nil
	}
	switch t.Row[k] {
	case "", "0", "1":
		return nil
	}
	return t.Errf(k, "%s %q is not 0, 1 or empty", MachineColumn, t.Row[k])
}
