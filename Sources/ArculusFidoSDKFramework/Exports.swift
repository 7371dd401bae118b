// `import ArculusFidoSDKFramework` is all the sample apps write: the SDK comes with it.
@_exported import ArculusSDK
