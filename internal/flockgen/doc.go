// Package flockgen generates typed Go code from an IronFlock app's
// templates; cmd/flockgen is its command line and tests call it directly.
//
// Generate reads .ironflock/data-template.yml and ai-template.yml of an
// app folder — validated first by package template, so that an invalid
// template is refused with the findings flockd validate prints
// (*TemplateError) — and returns one gofmt'ed Go file built on package
// typed:
//
//   - per table: a row struct (ReadingsRow), its typed columns
//     (Readings), aliases of its query, filter, event and series query
//     types, the latest marker of a table with an entity key
//     (ReadingsLatest), a handle (ReadingsTable, made by NewReadings; with
//     Reveal when the table has secret columns) and the functions that
//     write a row where the columns' paths say and read rows back, without
//     reflection;
//   - per transform: the same with a read-only handle (HourlyView);
//   - per consumed app whose template is given (Config.Providers): its
//     shared tables and transforms prefixed with its name (WeatherReadings)
//     and a struct of read-only handles (WeatherApp, NewWeatherApp over a
//     crossapp.Provider);
//   - the file namespaces as constants (NamespaceFirmware) and handles
//     (FileNamespaces);
//   - per topic tool of the agent template an argument struct made from
//     its JSON Schema (ReadTemperatureArgs), AgentTools and
//     ServeAgentTools;
//   - a schema digest, the file's last comment, from which Check names
//     what changed since the file was generated.
//
// Names: ids become exported Go names (GoName); two things that would
// take one Go name are refused naming both (*Error, with the line and
// column of the second where there is one).
//
// # Choices
//
//   - Every column but a table's tsp is nullable, so its field is a
//     pointer (json.RawMessage for json, secrets.Value for a secret
//     column); see package typed for what nil means on writes.
//   - A consumed app needs its template to get handles: Config.Providers
//     maps its name to its app folder (flockgen -provider weather=DIR);
//     one without is a warning. Private tables and secret columns of a
//     provider are left out.
//   - The agent template is embedded in the file, so ServeAgentTools
//     serves exactly the tools the argument structs were made for.
//   - Optional tool parameters are pointers, or nil slices and maps;
//     a string of format date-time is a time.Time; an object with
//     properties a struct, without them a map; a parameter of several
//     types or none is any.
package flockgen
