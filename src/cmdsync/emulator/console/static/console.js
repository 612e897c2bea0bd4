// The cmdsync emulator console: live updates, the Run form, the components of the bot's
// answer (buttons, selects, a modal), embeds' colours, spoilers.
// A plain ES module, served from the package; the pages work without it, except Run.

const status = document.getElementById("live-status");

function decorate(root) {
  for (const embed of root.querySelectorAll(".embed[data-colour]")) {
    embed.style.borderLeftColor = embed.dataset.colour;  // CSSOM: allowed by the CSP
  }
  for (const spoiler of root.querySelectorAll(".spoiler:not([data-ready])")) {
    spoiler.dataset.ready = "1";
    const reveal = () => {
      spoiler.classList.add("revealed");
      spoiler.setAttribute("aria-pressed", "true");
    };
    spoiler.addEventListener("click", reveal);
    spoiler.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); reveal(); }
    });
  }
}

// Fetch the page again and swap each live region whose HTML the server changed (not
// what this script added: colours, a revealed spoiler), keeping focus and open <details>.
const served = new Map([...document.querySelectorAll("[data-live][id]")].map(
  (region) => [region.id, region.innerHTML]));
let refreshing = null;
async function refresh() {
  if (refreshing) { refreshing.again = true; return; }
  refreshing = { again: false };
  try {
    const answer = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!answer.ok) return;
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    for (const region of document.querySelectorAll("[data-live][id]")) {
      const next = fresh.getElementById(region.id);
      if (!next || next.innerHTML === served.get(region.id)) continue;
      served.set(region.id, next.innerHTML);
      const open = [...region.querySelectorAll("details[open][id]")].map((d) => d.id);
      const focused = region.contains(document.activeElement) ? document.activeElement.id : null;
      region.replaceChildren(...next.childNodes);
      for (const id of open) document.getElementById(id)?.setAttribute("open", "");
      if (focused) document.getElementById(focused)?.focus();
      decorate(region);
    }
  } catch {
    // The emulator stopped, or this page is going away: the next connection refreshes.
  } finally {
    const again = refreshing.again;
    refreshing = null;
    if (again) refresh();
  }
}

function connect(delay = 500) {
  const socket = new WebSocket(`ws://${location.host}/console/live`);
  socket.addEventListener("open", () => {
    status.textContent = "Live updates: on";
    document.body.dataset.live = "on";
  });
  // "hello" too: what changed between this page's render (or the last connection)
  // and the socket's first look at the state would otherwise be missed.
  socket.addEventListener("message", (event) => {
    const type = JSON.parse(event.data).type;
    if (type === "change" || type === "hello") refresh();
  });
  socket.addEventListener("close", () => {
    status.textContent = "Live updates: reconnecting…";
    document.body.dataset.live = "off";
    setTimeout(() => connect(Math.min(delay * 2, 10000)), delay);
  });
}

// -- Run a command ------------------------------------------------------------------

function form(run) {
  const path = run.querySelector("[name=path]");
  const body = {
    application: run.dataset.application, guild: run.dataset.guild,
    command: run.dataset.command, path: path ? path.value : "", options: {},
  };
  for (const name of ["channel", "user", "locale", "target"]) {
    const field = run.querySelector(`[name=${name}]`);
    if (field) body[name] = field.value;
  }
  const active = run.querySelector(`fieldset.options:not([disabled])`);
  for (const field of active ? active.querySelectorAll("[data-option]") : []) {
    body.options[field.name] = field.value;
  }
  return body;
}

async function post(body) {
  const answer = await fetch("/console/run", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return answer.json();
}

function choosePath(run) {
  const path = run.querySelector("select[name=path]");
  if (!path) return;
  const show = () => {
    for (const set of run.querySelectorAll("fieldset.options")) {
      const on = set.dataset.path === path.value;
      set.hidden = !on;
      set.disabled = !on;
    }
  };
  path.addEventListener("change", show);
  show();
}

function autocomplete(run) {
  for (const input of run.querySelectorAll("[data-autocomplete]")) {
    let timer = null;
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const reply = await post({ ...form(run), focused: input.name });
        const list = document.getElementById(input.getAttribute("list"));
        list.replaceChildren(...(reply.choices || []).map((choice) => {
          const option = document.createElement("option");
          option.value = String(choice.value);
          option.label = choice.name;
          return option;
        }));
        input.dataset.choices = String((reply.choices || []).length);
      }, 250);
    });
  }
}

function running(run) {
  const refusal = document.getElementById("run-refusal");
  const button = document.getElementById("run-button");
  run.addEventListener("submit", async (event) => {
    event.preventDefault();
    refusal.textContent = "";
    document.getElementById("action-refusal")?.replaceChildren();
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      const body = form(run);
      const reply = await post(body);
      if (reply.refused) { refusal.textContent = reply.refused; return; }
      const url = new URL(location.href);
      for (const key of ["channel", "user", "locale"]) {
        if (body[key]) url.searchParams.set(key, body[key]);
      }
      url.searchParams.set("interaction", reply.interaction);
      history.replaceState(null, "", url);
      await refresh();
      document.getElementById("exchange-heading")?.focus();
    } catch (error) {
      refusal.textContent = `The console could not reach the emulator: ${error}`;
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  });
}

// -- Use the components of the answer, submit its modal -----------------------------

// Who acts: the Run form's user and locale, else those of the interaction shown.
function actor() {
  const shown = document.getElementById("exchange-heading")?.dataset || {};
  const user = document.getElementById("run-user");
  const locale = document.getElementById("run-locale");
  return {
    application_id: shown.application || "",
    user_id: user ? user.value : shown.user || "",
    locale: locale ? locale.value : shown.locale || "en-US",
  };
}

// Send one action (POST /console/act) and show its exchange, or why it was refused.
async function act(action, control) {
  const refusal = document.getElementById("action-refusal");
  refusal.textContent = "";
  control.disabled = true;
  control.setAttribute("aria-busy", "true");
  try {
    const body = { ...actor(), ...action };
    const answer = await fetch("/console/act", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const reply = await answer.json();
    if (reply.refused) { refusal.textContent = reply.refused; return; }
    const url = new URL(location.href);
    if (body.user_id) url.searchParams.set("user", body.user_id);
    url.searchParams.set("interaction", reply.interaction);
    history.replaceState(null, "", url);
    await refresh();
    document.getElementById("exchange-heading")?.focus();
  } catch (error) {
    refusal.textContent = `The console could not reach the emulator: ${error}`;
  } finally {
    control.disabled = false;
    control.removeAttribute("aria-busy");
  }
}

// Listen on the exchange itself: its content is replaced as the answer changes.
function acting(exchange) {
  exchange.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-component]");
    if (!button || button.disabled) return;
    act({ kind: "component", message_id: button.dataset.message,
          custom_id: button.dataset.customId }, button);
  });
  exchange.addEventListener("submit", (event) => {
    const sent = event.target;
    if (sent.matches("form[data-component-select]")) {
      event.preventDefault();
      const values = [...sent.querySelector("select").selectedOptions]
        .map((option) => option.value).filter((value) => value !== "");
      act({ kind: "component", message_id: sent.dataset.message,
            custom_id: sent.dataset.customId, values },
          sent.querySelector("button[type=submit]"));
    } else if (sent.matches("form[data-modal-of]")) {
      event.preventDefault();
      const fields = {};
      for (const field of sent.querySelectorAll("[data-field]")) {
        fields[field.dataset.customId] = field.value;
      }
      act({ kind: "modal_submit", modal_of: sent.dataset.modalOf, fields },
          sent.querySelector("button[type=submit]"));
    }
  });
}

decorate(document);
const run = document.getElementById("run-form");
if (run) { choosePath(run); autocomplete(run); running(run); }
const exchange = document.getElementById("exchange");
if (exchange) acting(exchange);
connect();
