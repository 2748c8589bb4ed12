/**
 * Where an assistant usually runs (docs/assistant.md "Set-up"): the settings UI offers these, and the
 * docs describe them. A preset fills the endpoint and suggests models; the owner can change both.
 */
export interface AssistantPreset {
  id: 'openai' | 'ollama' | 'lmstudio' | 'llamacpp' | 'custom'
  label: string
  /** The endpoint's /v1 root ('' for custom). */
  base_url: string
  /** A model to start with ('' when the server names its own). */
  model: string
  embedding_model: string
  transcription_model: string
  /** Whether the endpoint needs a key. */
  needsKey: boolean
  /** One line for the owner. */
  hint: string
}

export const ASSISTANT_PRESETS: readonly AssistantPreset[] = [
  {
    id: 'openai',
    label: 'OpenAI',
    base_url: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    embedding_model: 'text-embedding-3-small',
    transcription_model: 'whisper-1',
    needsKey: true,
    hint: 'Hosted by OpenAI: needs an API key (platform.openai.com); customers’ messages and your knowledge go to OpenAI.'
  },
  {
    id: 'ollama',
    label: 'Ollama on this PC',
    base_url: 'http://127.0.0.1:11434/v1',
    model: 'llama3.1:8b',
    embedding_model: 'nomic-embed-text',
    transcription_model: '',
    needsKey: false,
    hint: 'A model on this PC: nothing leaves the building. Install Ollama, then run “ollama pull llama3.1:8b”.'
  },
  {
    id: 'lmstudio',
    label: 'LM Studio on this PC',
    base_url: 'http://127.0.0.1:1234/v1',
    model: '',
    embedding_model: '',
    transcription_model: '',
    needsKey: false,
    hint: 'A model on this PC: load one in LM Studio, start its server (Developer → Start server) and enter the model’s name.'
  },
  {
    id: 'llamacpp',
    label: 'llama.cpp server on this PC',
    base_url: 'http://127.0.0.1:8080/v1',
    model: 'local',
    embedding_model: '',
    transcription_model: '',
    needsKey: false,
    hint: 'llama-server -m model.gguf --port 8080 --jinja (the --jinja flag lets the model call the hand-off tool).'
  },
  { id: 'custom', label: 'Another OpenAI-compatible server', base_url: '', model: '', embedding_model: '', transcription_model: '', needsKey: false, hint: 'vLLM, OpenRouter, a server on your network…: its /v1 address, the model’s name and a key if it needs one.' }
]

/** The preset whose endpoint is `baseUrl`, else custom. */
export function presetOf(baseUrl: string): AssistantPreset {
  return ASSISTANT_PRESETS.find((p) => p.base_url !== '' && p.base_url === baseUrl.replace(/\/+$/, '')) ?? ASSISTANT_PRESETS.at(-1)!
}
