/// What the decoder knew about one recognised word when it gave it a confidence: the
/// inputs of the confidence model, kept with the word so the model can be fitted again
/// (`Tools/confidence fit`) on what the engine really saw.
package struct WordEvidence: Sendable, Equatable {
    /// The model's inputs, in its order (`ConfidenceModel.names`).
    package var features: [Double]

    package init(features: [Double]) {
        self.features = features
    }
}
