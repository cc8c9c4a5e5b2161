"use client";
// The model id chosen for an endpoint, on the episode page's model controls and the new-run form:
// the ids the endpoint lists are offered (a combobox that still takes free text); the last id
// chosen for that endpoint in this browser comes back; with none, the first listed id is taken.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { modelIdsQuery } from "./run-queries";

const KEY = (endpoint: string) => `ors-model-id:${endpoint}`;

function remembered(endpoint: string): string | null {
  try {
    return localStorage.getItem(KEY(endpoint));
  } catch {
    return null; // storage disabled
  }
}

function remember(endpoint: string, model: string): void {
  try {
    if (model) localStorage.setItem(KEY(endpoint), model);
    else localStorage.removeItem(KEY(endpoint));
  } catch {
    // storage disabled: not remembered
  }
}

type Chosen = { endpoint: string; model: string } | null;

export interface ModelChoice {
  /** The id to use: the one chosen for this endpoint, else the remembered one, else the first listed. */
  model: string;
  setModel: (model: string) => void;
  /** The ids the endpoint lists (empty while unknown). */
  ids: string[];
  listing: boolean;
  /** Why the endpoint's ids could not be listed (free text still works). */
  listError: string | null;
}

export function useModelChoice(endpoint: string): ModelChoice {
  const list = useQuery({ ...modelIdsQuery(endpoint), enabled: !!endpoint });
  const [chosen, setChosen] = useState<Chosen>(null);
  // Read after mount: the server renders the form without the browser's storage.
  useEffect(() => {
    if (!endpoint) return;
    const saved = remembered(endpoint);
    setChosen((c) => (c?.endpoint === endpoint ? c : saved !== null ? { endpoint, model: saved } : null));
  }, [endpoint]);
  const own = chosen?.endpoint === endpoint ? chosen.model : null;
  return {
    model: own ?? list.data?.[0] ?? "",
    setModel: (model) => {
      setChosen({ endpoint, model });
      remember(endpoint, model);
    },
    ids: list.data ?? [],
    listing: list.isFetching,
    listError: list.error ? list.error.message : null,
  };
}
