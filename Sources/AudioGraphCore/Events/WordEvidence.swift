/// What the decoder knew about one recognised word when it gave it a confidence: the
/// inputs of the confidence model, kept with the word so the model can be fitted again
/// (`Tools/confidence fit`) on what the engine really saw.
package struct WordEvidence: Sendable, Equatable {
    /// The model's inputs, in the order of `names`.
    package var features: [Double]
    /// One name per feature.
    package var names: [String]

    package init(features: [Double], names: [String]) {
        self.features = features
        self.names = names
    }
}
