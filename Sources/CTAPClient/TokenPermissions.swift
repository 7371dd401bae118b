import FIDOWire

/// pinUvAuthToken permissions (CTAP 2.1 §6.5.5.7): the wire vocabulary's
/// ``PINUVAuthPermissions`` (`mc`, `ga`, `cm`, …), under the name this client's API uses.
public typealias TokenPermissions = PINUVAuthPermissions
