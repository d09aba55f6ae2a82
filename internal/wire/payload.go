package wire

// PayloadElems is how many payload elements a WAMP message lists after
// its fixed fields, as nexus writes them: both the arguments and the
// keyword arguments when there are keyword arguments, the arguments alone
// when there are some, else none.
func PayloadElems(args []any, kwargs map[string]any) int {
	switch {
	case len(kwargs) > 0:
		return 2
	case len(args) > 0:
		return 1
	}
	return 0
}
