import Foundation

/// Checks an acoustic model directory (`hmm`) before PocketSphinx loads it: each file its
/// configuration names is there, readable, whole (header, byte order, sizes, checksum) and
/// consistent with the others. PocketSphinx ends the process on most of these faults, or
/// reads out of bounds; here each is a ``ModelFileProblem`` naming the file.
///
/// Costs about 10 ms on Debian's en-us model (7 MB, memory-mapped; `Tools/bench model`).
enum AcousticModelCheck {
    /// Every file of the directory the check may read (those present are read).
    static let fileNames = ["mdef", "means", "variances", "transition_matrices", "sendump", "mixture_weights",
                            "feat.params", "noisedict"]

    /// The model's definition (its phones, for checking dictionaries).
    static func check(_ directory: String) throws(ModelFileProblem) -> ModelDefinition {
        func file(_ name: String) -> String {
            // A file read here but missing from the list would be trusted from a record made before it changed.
            assert(fileNames.contains(name), "\(name) is read by the check but not in fileNames")
            return (directory as NSString).appendingPathComponent(name)
        }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

        let definition = try ModelDefinition(file("mdef"))
        let means = try S3ParameterFile.gaussians(file("means"))
        let variances = try S3ParameterFile.gaussians(file("variances"))
        guard means == variances else {
            throw ModelFileProblem(file("variances"), "dimensions \(describe(variances)) differ from the means' \(describe(means)): from another model")
        }
        guard [1, definition.phones.count, definition.senones].contains(means.codebooks) else {
            throw ModelFileProblem(file("means"), "has \(means.codebooks) codebooks; mdef has \(definition.phones.count) phones and \(definition.senones) senones: from another model")
        }
        let transitions = try S3ParameterFile.transitions(file("transition_matrices"))
        guard transitions.matrices >= definition.matrices,
              definition.emittingStates == 0 || transitions.states == definition.emittingStates else {
            throw ModelFileProblem(file("transition_matrices"), "holds \(transitions.matrices) matrices of \(transitions.states) states; mdef needs \(definition.matrices) of \(definition.emittingStates): from another model")
        }
        if exists("sendump") {
            try SenoneDump.check(file("sendump"), senones: definition.senones, streams: means.streams, densities: means.densities)
        } else if exists("mixture_weights") {
            let w = try S3ParameterFile.mixtureWeights(file("mixture_weights"))
            guard w.senones == definition.senones, w.streams == means.streams, w.densities == means.densities else {
                throw ModelFileProblem(file("mixture_weights"), "is for \(w.senones) senones x \(w.densities) densities x \(w.streams) streams; the model has \(definition.senones) x \(means.densities) x \(means.streams): from another model")
            }
        } else {
            throw ModelFileProblem(file("sendump"), "missing, and no mixture_weights either: the model directory is incomplete")
        }
        if exists("feat.params") { try checkFeatureParameters(file("feat.params"), means) }
        if exists("noisedict") {
            try PronunciationDictionary.check(file("noisedict"), phones: definition.phones, allowEmpty: true)
        }
        return definition
    }

    /// `feat.params`: `-name value` lines; a stream split (`-svspec`) must match the Gaussians.
    private static func checkFeatureParameters(_ path: String, _ means: S3ParameterFile.Gaussians) throws(ModelFileProblem) {
        var reader = try ModelFileReader(path)
        var number = 0
        while let line = reader.line() {
            number += 1
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty || words[0].hasPrefix("#") { continue }
            guard words.count == 2, words[0].hasPrefix("-"), line.utf8.allSatisfy({ $0 >= 0x20 || $0 == 0x09 || $0 == 0x0D }) else {
                throw reader.problem("line \(number): expected \"-name value\": damaged")
            }
            if words[0] == "-svspec" {
                let lengths = words[1].split(separator: "/").map { part -> Int in
                    part.split(separator: ",").reduce(0) { sum, range in
                        let ends = range.split(separator: "-").compactMap { Int($0) }
                        return sum + (ends.count == 2 ? ends[1] - ends[0] + 1 : 1)
                    }
                }
                guard lengths == means.lengths else {
                    throw reader.problem("line \(number): -svspec gives streams of \(lengths.map(String.init).joined(separator: "/")) values; the means have \(means.lengths.map(String.init).joined(separator: "/")): from another model")
                }
            }
        }
    }

    private static func describe(_ g: S3ParameterFile.Gaussians) -> String {
        "\(g.codebooks) x \(g.densities) x \(g.lengths.map(String.init).joined(separator: "+"))"
    }
}
