// `import ArculusFidoSDKFramework` is all the sample apps write: the SDK comes with it, and
// Foundation, as with any Apple framework (the minimal example uses Data and JSONSerialization
// without importing Foundation itself). Where they can be built (Linux, macOS), the connectors
// come too (PCSCCardConnector, VirtualCardConnector, ...), which `ArculusFido()` uses; an iOS
// app's build of this module has none of them, and needs neither PC/SC nor the card side.
@_exported import ArculusSDK
@_exported import Foundation
#if canImport(ArculusFidoConnectors)
@_exported import ArculusFidoConnectors
#endif
