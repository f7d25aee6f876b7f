// Embedders write `import AudioGraph` and get the whole engine API.
@_exported import AudioGraphCore
