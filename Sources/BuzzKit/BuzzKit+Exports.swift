// The wire types (`JSONValue`, `LocalPlan`, `FireAt`, `BuzzEvent`…) are part of the SDK's API:
// an app that imports BuzzKit uses them without importing the internal BuzzKitWire module.
@_exported import BuzzKitWire
