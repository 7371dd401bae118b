// The SDK's documents (server options and results, card responses, errors) are `JSONValue`s,
// the project's one JSON type, from the JSONSupport module; re-exported so that `import
// ArculusSDK` is all an app needs to read them.
@_exported import JSONSupport
