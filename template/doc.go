// Package template parses and validates the two templates of an IronFlock
// app, .ironflock/data-template.yml and .ironflock/ai-template.yml, into
// typed Go values.
//
// The data template declares the app's tables (columns with their data
// types, message paths and secret flags, entity keys), transforms (SQL
// views), the apps it consumes data from and its managed file storage;
// ParseData returns a *DataTemplate with every default applied. The agent
// template declares AI agents and the tools they call; ParseAgents returns
// an *AgentTemplate whose tool parameters are normalised JSON Schema
// objects. A tool's parameters may be written in either of the platform's
// two forms, both read without a finding: a JSON Schema object
// ({type: object, properties: {...}, required: [...]}) or the map of
// parameter name to {type, description, required: true|false} of the
// platform's documentation, which is converted to the first. ValidateDir checks both files of an app folder at once and
// renders a Report for a command-line tool.
//
// A Tool also keeps the layout of its source: where it stands (Pos), where
// each part of its parameters' schema stands (ParameterPosition, by JSON
// Pointer) and the order in which the file writes its parameters
// (ParameterNames). Package agent reports a Go tool that disagrees with
// the template at those positions, and reads arguments passed as
// positional values in that order.
//
// # Findings
//
// Validation never stops at the first problem: every rule of the two
// formats that is broken yields a Finding with the file, the line and
// column (from the YAML node), a path such as
// "data.tables[2].columns[0].dataType" and a message that says what is
// allowed. Findings of SeverityError make ParseData and ParseAgents return
// an *Error (match it with errors.As) and a nil template; findings of
// SeverityWarning (unknown keys, which the platform ignores, for one) do
// not.
//
// # YAML
//
// Templates are YAML 1.2: yes, no, on and off are strings, so `private: yes`
// is an error that says to write true. Anchors, aliases and merge keys
// ("<<") work; a file holds a single document; duplicate keys and custom
// tags are errors. An unquoted * (as in `app: *`) is a YAML syntax error
// and reported as such, with the advice to quote it.
//
// # Choices where the platform documents are silent
//
//   - Column ids obey the 63-byte identifier limit of table names.
//   - A column path must start at args, kwargs or details (PathKeys).
//   - maintainLatestFlagFor may be one column id written as a string
//     (maintainLatestFlagFor: machine), read as a one-element list, as
//     apps written from older documentation do.
//   - Duplicate entries in maintainLatestFlagFor and duplicate namespace
//     names are errors; duplicate content types are warnings.
//   - Interval texts (dropAfter, chunkTimeInterval, columnstoreAfter,
//     downsample.bucket and keepFor) that do not look like "30 days" are
//     warnings; downsample needs a bucket.
//   - Cron macros such as "@daily" are not accepted (5 or 6 fields only).
//   - An explicit null value counts as an absent key.
//   - Empty tool parameters ({}) mean a tool without arguments.
package template
