/// PocketSphinx's quantised mixture weights (`sendump`): length-prefixed header strings up
/// to an empty one, optionally the weight array's rows and columns, an optional cluster
/// codebook, then one byte (or half a byte) per senone, density and feature stream.
enum SenoneDump {
    /// Checks the dump against the model's senone count and Gaussian dimensions.
    static func check(_ path: String, senones: Int, streams: Int, densities: Int) throws(ModelFileProblem) {
        var r = try ModelFileReader(path)
        guard r.bytes.count > 0 else { throw r.problem("is empty") }
        var titleLength = try r.int32("title length")
        if !(1...999).contains(titleLength) {
            titleLength = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: titleLength).byteSwapped))
            guard (1...999).contains(titleLength) else {
                throw r.problem("is not a senone dump (its first word is no title length): damaged or the wrong file")
            }
            r.swapped = true
        }
        var fileStreams = streams, fileDensities = densities, fileSenones = senones, clusters = 0, bits = 8
        var length = titleLength
        var index = 0
        while length != 0 {
            guard (1...65536).contains(length) else { throw r.problem("header string \(index) claims \(length) bytes: damaged") }
            let start = r.offset
            try r.skip(length, "header string \(index)")
            let text = String(decoding: r.bytes[r.bytes.startIndex + start ..< r.bytes.startIndex + start + length - 1], as: UTF8.self)
            if index < 2 {
                guard r.bytes[r.bytes.startIndex + start + length - 1] == 0 else {
                    throw r.problem("header string \(index) is not terminated: damaged")
                }
            }
            func value(_ key: String) -> Int? {
                text.hasPrefix(key + " ") ? Int(text.dropFirst(key.count + 1).prefix(while: { $0.isNumber })) : nil
            }
            fileStreams = value("feature_count") ?? fileStreams
            fileDensities = value("mixture_count") ?? fileDensities
            fileSenones = value("model_count") ?? fileSenones
            clusters = value("cluster_count") ?? clusters
            bits = value("cluster_bits") ?? bits
            index += 1
            length = try r.int32("header string length")
        }
        var rows = fileDensities, columns = fileSenones
        if clusters == 0 {
            rows = try r.int32("row count")
            columns = try r.int32("column count")
        }
        guard fileStreams == streams, fileDensities == densities, fileSenones == senones else {
            throw r.problem("is for \(fileSenones) senones x \(fileDensities) densities x \(fileStreams) streams; the model has \(senones) x \(densities) x \(streams): from another model")
        }
        guard [0, 15, 16].contains(clusters), [4, 8].contains(bits) else {
            throw r.problem("cluster count \(clusters) or bits \(bits) is not one PocketSphinx reads: damaged")
        }
        guard rows > 0, columns > 0, rows <= 65536, columns <= 10_000_000 else {
            throw r.problem("weight array is \(rows) x \(columns): damaged")
        }
        try r.skip(clusters == 15 ? 16 : clusters, "cluster codebook")
        let rowBytes = bits == 4 ? (columns + 1) / 2 : columns
        try r.skip(streams * rows * rowBytes, "weights")
    }
}
