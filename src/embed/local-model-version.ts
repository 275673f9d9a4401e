/** The bundled model's identity, apart from its loader so that naming it loads no tfjs. */
export const LOCAL_MODEL_VERSION = "use-lite-512@energetic-ai-0.2.0";
export const LOCAL_MODEL_DIMS = 512;
