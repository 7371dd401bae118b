// `import ArculusFidoSDKFramework` is all the sample apps write: the SDK comes with it, and
// Foundation, as with any Apple framework (the minimal example uses Data and JSONSerialization
// without importing Foundation itself).
@_exported import ArculusSDK
@_exported import Foundation
