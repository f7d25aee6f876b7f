// Embedders write `import AudioGraph` and get the whole engine API.
@_exported import AudioGraphCore
// What an assistant's nodes share (vocabulary entries, the conversation's events).
@_exported import AudioGraphConversation
